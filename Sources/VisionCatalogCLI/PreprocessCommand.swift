import VisionCatalog

/// `vision-catalog preprocess IMAGE --out FILE.npy|FILE.png [--size S] [--crop center|fit|fill]`.
struct PreprocessCommand: Subcommand {
  let name = "preprocess"
  let summary = "Turn a photo into the exact model input: a float32 .npy tensor or a PNG."
  let help = """
    USAGE: vision-catalog preprocess IMAGE --out FILE.npy|FILE.png [--size S] [--crop center|fit|fill]

    Applies the EXIF orientation, crops and scales like Vision (centerCrop, scaleFit with
    black padding, scaleFill) with an antialiased bilinear filter, and writes the result:
    .npy is float32 [1, 3, S, S] in NCHW RGB order with levels 0...255; .png is the
    8-bit picture the tensor was made from.

    OPTIONS:
      --out FILE            the output file, .npy or .png
      --size S              the input side in pixels (default 224)
      --crop MODE           center (default), fit or fill
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(arguments, options: ["out", "size", "crop"], flags: [])
    let input = try parsed.singlePositional(named: "IMAGE")
    let output = try parsed.required("out")
    let kind = try ImageFiles.outputKind(of: output, allowed: ["npy", "png"])
    let size = try parsed.integer("size", in: 1...ModelInputSpec.maximumSide) ?? 224
    let crop: CropAndScale
    switch try parsed.choice("crop", of: ["center", "fit", "fill"]) {
    case "fit": crop = .scaleFit
    case "fill": crop = .scaleFill
    default: crop = .centerCrop
    }
    let spec = ModelInputSpec(width: size, height: size, cropAndScale: crop)
    let image = try ImageFiles.decode(input)
    if kind == "png" {
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
