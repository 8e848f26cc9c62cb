import ImagePipeline

// Shared by the image-decoding harnesses (Scripts/fuzz.sh compiles Fuzz/Shared/ImageDecoding.swift
// into each harness whose MODULE is ImagePipeline).

/// The pixel limit the image harnesses decode with: large enough for every corpus file, small
/// enough that one input cannot spend libFuzzer's 2 s timeout on a legitimately huge image.
let fuzzPixelLimit = 4_000_000

/// Inspects and decodes one input, then orients the image: inspection and decoding must agree on
/// the size and orientation of any image both accept, and any other outcome than an image or an
/// `ImageDecodingError` is a finding (the fuzzer sees a crash).
func decodeAndCheck(_ bytes: [UInt8], options: DecodingOptions) {
  let decoder = ImageDecoder(options: options)
  let info = try? decoder.inspect(bytes)
  guard let image = try? decoder.decode(bytes) else {
    return
  }
  guard let info else {
    fatalError("decode succeeded where inspect failed")
  }
  guard info.width == image.width, info.height == image.height,
    info.orientation == image.orientation
  else {
    fatalError("inspect \(info) disagrees with the decoded \(image.width)x\(image.height)")
  }
  guard image.pixels.count == image.width * image.height * image.format.channelCount else {
    fatalError("pixel buffer has the wrong size")
  }
  let upright = image.oriented()
  guard upright.width == image.displayWidth, upright.height == image.displayHeight else {
    fatalError("orientation changed the display size")
  }
}
