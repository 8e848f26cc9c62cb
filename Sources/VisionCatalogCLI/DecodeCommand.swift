import VisionCatalog

/// `vision-catalog decode IMAGE --out FILE.png|FILE.ppm [--no-orient]`.
struct DecodeCommand: Subcommand {
  let name = "decode"
  let summary = "Decode a PNG, JPEG, WebP, HEIC or AVIF, turn it upright, and write PNG or PPM."
  let help = """
    USAGE: vision-catalog decode IMAGE --out FILE.png|FILE.ppm [--no-orient]

    Decodes IMAGE (format sniffed from its bytes) and applies its EXIF orientation.
    A .png output keeps the decoded channels at 8 bits (gray, gray+alpha, RGB or RGBA;
    tRNS becomes alpha); a .ppm output is RGB.

    OPTIONS:
      --out FILE        the output file, .png or .ppm
      --no-orient       keep the stored pixels; do not apply the EXIF orientation
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(arguments, options: ["out"], flags: ["no-orient"])
    let input = try parsed.singlePositional(named: "IMAGE")
    let output = try parsed.required("out")
    let kind = try ImageFiles.outputKind(of: output, allowed: ["png", "ppm"])
    var image = try ImageFiles.decode(input)
    if !parsed.has("no-orient") {
      image.orient()
    }
    // The written file holds the pixels as they are; an orientation tag would turn them again.
    image.orientation = .up
    try ImageFiles.write(try ImageFiles.encode(image, as: kind), to: output)
  }
}
