import ModelFormats
import NeuralCore

/// Reads one input as a Core ML `.mlmodel` with the default limits and, when it reads, plans its
/// network as a caller's first classification would.
///
/// Any outcome other than a model, a session or a `ModelFormatsError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let model = try? CoreMLModel(serializedBytes: bytes) else { return 0 }
  _ = try? InferenceSession(coreMLModel: model, options: SessionOptions(threadCount: 1))
  return 0
}
