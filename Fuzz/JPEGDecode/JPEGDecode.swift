import ImagePipeline

/// Feeds one input to the decoder twice, strictly (truncation is an error) and leniently,
/// checking that inspection and decoding agree on whatever both accept.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  decodeAndCheck(bytes, options: DecodingOptions(maximumPixelCount: fuzzPixelLimit))
  var lenient = DecodingOptions(maximumPixelCount: fuzzPixelLimit)
  lenient.allowsTruncatedJPEG = true
  decodeAndCheck(bytes, options: lenient)
  return 0
}
