import CNative
import ImagePipeline

/// The pixel limit the image harnesses decode with: large enough for every corpus file, small
/// enough that one input cannot spend libFuzzer's 2 s timeout on a legitimately huge image.
let fuzzPixelLimit = 4_000_000

/// Feeds one input to the decoder: header inspection, then a full decode, then orientation.
///
/// Inspection and decoding must agree on the size and format of any image both accept; any
/// other outcome than an image or an `ImageDecodingError` is a finding (the fuzzer sees a crash).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  decodeAndCheck(bytes, options: DecodingOptions(maximumPixelCount: fuzzPixelLimit))
  compareReaders(bytes)
  return 0
}

/// The whole-buffer reader may only take a file that libpng's streaming reader decodes to the
/// same pixels.
func compareReaders(_ bytes: [UInt8]) {
  var options = cic_decode_options()
  options.max_pixels = UInt64(fuzzPixelLimit)
  var info = cic_image_info()
  var message = [CChar](repeating: 0, count: Int(CIC_MESSAGE_CAPACITY))
  guard
    cic_png_inspect(bytes, bytes.count, &options, &info, &message, message.count)
      == CIC_STATUS_OK,
    UInt64(info.width) * UInt64(info.height) <= UInt64(fuzzPixelLimit)
  else { return }
  let count = Int(info.width) * Int(info.height) * Int(info.channels)
  var whole = [UInt8](repeating: 0, count: count)
  var wholeInfo = cic_image_info()
  guard cic_png_decode_whole(bytes, bytes.count, &options, &whole, count, &wholeInfo) == 1 else {
    return
  }
  var streamed = [UInt8](repeating: 0, count: count)
  var streamedInfo = cic_image_info()
  let status = cic_png_decode_streaming(
    bytes, bytes.count, &options, &streamed, count, &streamedInfo, &message, message.count)
  guard status == CIC_STATUS_OK, streamed == whole, streamedInfo.channels == wholeInfo.channels
  else {
    fatalError("the whole-buffer reader took a file libpng decodes differently (\(status))")
  }
}

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
