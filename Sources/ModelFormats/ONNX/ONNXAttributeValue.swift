/// The value of an ONNX node attribute; cases mirror `AttributeProto.AttributeType`.
package enum ONNXAttributeValue: Sendable, Hashable {
  /// A 32-bit float.
  case float(Float)
  /// A 64-bit integer.
  case int(Int64)
  /// A string (UTF-8, invalid sequences repaired).
  case string(String)
  /// A tensor, as used by `Constant`.
  case tensor(ONNXTensor)
  /// A subgraph, as used by `If`, `Loop` and `Scan`.
  case graph(ONNXGraph)
  /// A list of floats.
  case floats([Float])
  /// A list of integers.
  case ints([Int64])
  /// A list of strings.
  case strings([String])
  /// A list of tensors.
  case tensors([ONNXTensor])
  /// A list of subgraphs.
  case graphs([ONNXGraph])
  /// A kind this library keeps unread (sparse tensors, type protos), by `AttributeType` number.
  case unread(attributeType: Int)
}
