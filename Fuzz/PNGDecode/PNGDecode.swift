import CNative
import ImagePipeline

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
