import NeuralCore

/// Parses one input as an ONNX `ModelProto` and, with the first byte flipped to select it, as a
/// lone `TensorProto` (the node tests' `.pb` files), both with the default limits a caller gets.
/// Any outcome other than a model or a `NeuralCoreError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let model = try? ONNXModel(serializedBytes: bytes) {
    _ = model.graph.nodes.count
  }
  _ = try? ONNXTensor(serializedBytes: bytes)
  return 0
}
