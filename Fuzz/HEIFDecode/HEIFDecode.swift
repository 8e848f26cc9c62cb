import ImagePipeline

/// Feeds one input to the decoder (HEIC and AVIF seeds; the decoder sniffs, so any format may
/// come out of a mutation): header inspection, then a full decode, then orientation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  decodeAndCheck(bytes, options: DecodingOptions(maximumPixelCount: fuzzPixelLimit))
  return 0
}
