import VisionCatalog

/// `vision-catalog preprocess IMAGE --out FILE.npy|FILE.png [--size S] [--crop center|fit|fill]`.
struct PreprocessCommand: Subcommand {
  /// `--out FILE.npy|FILE.png`: the file to write.
  static let out = Option.text(
    "out", "FILE.npy|FILE.png", isRequired: true, help: "the output file, .npy or .png")
  /// `--size S`: the model input's side.
  static let size = Option.integer(
    "size", "S", in: 1...ModelInputSpec.maximumSide,
    help: "the input side in pixels (default 224)")
  /// The words `--crop` takes and the crops they name, the default first.
  static let crops: [(word: String, crop: CropAndScale)] = [
    ("center", .centerCrop), ("fit", .scaleFit), ("fill", .scaleFill),
  ]
  /// `--crop center|fit|fill`: how the photo is fitted to the square input.
  static let crop = Option.choice(
    "crop", crops.map(\.word),
    help: "center crops the middle square (default), fit scales the whole photo in with black "
      + "padding, fill stretches it")

  let name = "preprocess"
  let summary = "Turn a photo into the exact model input: a float32 .npy tensor or a PNG."
  let synopsis = "IMAGE"
  let discussion = """
    Applies the EXIF orientation, crops and scales like Vision (centerCrop, scaleFit with
    black padding, scaleFill) with an antialiased bilinear filter, and writes the result:
    .npy is float32 [1, 3, S, S] in NCHW RGB order with levels 0...255; .png is the
    8-bit picture the tensor was made from.
    """
  let options = [Self.out, Self.size, Self.crop]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let input = try parsed.singlePositional(named: synopsis)
    let output = try parsed.required(Self.out)
    let kind = try ImageFiles.outputKind(of: output, allowed: [.npy, .png])
    let size = parsed.integer(Self.size) ?? 224
    let crop = Self.crops.first { $0.word == parsed.value(Self.crop) }?.crop ?? .centerCrop
    let spec = ModelInputSpec(width: size, height: size, cropAndScale: crop)
    let image = try ImageFiles.decode(input)
    if kind == .png {
      let picture = try ImageFiles.prepare(input) { () throws(ImageDecodingError) in
        try spec.picture(from: image)
      }
      try ImageFiles.write(try ImageFiles.encode(picture.image, as: kind), to: output)
    } else {
      let prepared = try ImageFiles.prepare(input) { () throws(ImageDecodingError) in
        try spec.tensor(from: image)
      }
      let tensor: Tensor
      do {
        tensor = try Tensor(shape: prepared.tensor.shape, scalars: prepared.tensor.values)
      } catch {
        throw CLIError.failure(error.message)
      }
      try ImageFiles.write(NPYFile.encode(tensor), to: output)
    }
  }
}
