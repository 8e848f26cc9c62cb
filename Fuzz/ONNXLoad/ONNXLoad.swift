import ModelFormats
import NeuralCore

/// Parses one input as an ONNX `ModelProto` and as a lone `TensorProto`.
///
/// Both use the default limits a caller gets; the tensor form covers the node tests' `.pb`
/// files. Any outcome other than a value or a `ModelFormatsError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let model = try? ONNXModel(serializedBytes: bytes) {
    _ = model.graph.nodes.count
  }
  _ = try? ONNXTensor(serializedBytes: bytes)
  return 0
}
