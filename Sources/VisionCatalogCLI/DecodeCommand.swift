import VisionCatalog

/// `vision-catalog decode IMAGE --out FILE.png|FILE.ppm [--no-orient]`.
struct DecodeCommand: Subcommand {
  /// `--out FILE.png|FILE.ppm`: the file to write.
  static let out = Option.text(
    "out", "FILE.png|FILE.ppm", isRequired: true, help: "the output file, .png or .ppm")
  /// `--no-orient`: the stored pixels, not turned upright.
  static let noOrient = Option.flag(
    "no-orient", help: "keep the stored pixels; do not apply the EXIF orientation")

  let name = "decode"
  let summary = "Decode a PNG, JPEG, WebP, HEIC or AVIF, turn it upright, and write PNG or PPM."
  let synopsis = "IMAGE"
  let discussion = """
    Decodes IMAGE (format sniffed from its bytes) and applies its EXIF orientation.
    A .png output keeps the decoded channels at 8 bits (gray, gray+alpha, RGB or RGBA;
    tRNS becomes alpha); a .ppm output is RGB.
    """
  let options = [Self.out, Self.noOrient]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let input = try parsed.singlePositional(named: synopsis)
    let output = try parsed.required(Self.out)
    let kind = try ImageFiles.outputKind(of: output, allowed: [.png, .ppm])
    var image = try ImageFiles.decode(input)
    if !parsed.has(Self.noOrient) {
      image.orient()
    }
    // The written file holds the pixels as they are; an orientation tag would turn them again.
    image.orientation = .up
    try ImageFiles.write(try ImageFiles.encode(image, as: kind), to: output)
  }
}
