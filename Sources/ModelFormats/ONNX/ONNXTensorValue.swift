package import NeuralCore

/// The elements of an ONNX tensor, kept faithfully by kind.
///
/// Floating-point types narrower than 32 bits (float16, bfloat16, the float8 and float4 types)
/// widen exactly to `Tensor`; every integer type widens to `Int64` (uint64 keeps its bit
/// pattern); double stays double.
package enum ONNXTensorValue: Sendable, Hashable {
  /// Floating-point elements of at most 32 bits, as a float32 tensor.
  case float(Tensor)
  /// 64-bit floating-point elements with their shape.
  case double([Double], shape: [Int])
  /// Integer elements of any width with their shape.
  case integer([Int64], shape: [Int])
  /// Boolean elements with their shape.
  case bool([Bool], shape: [Int])
  /// String elements (UTF-8, invalid sequences repaired) with their shape.
  case string([String], shape: [Int])

  /// The dimensions, outermost first.
  package var shape: [Int] {
    switch self {
    case .float(let tensor): tensor.shape
    case .double(_, let shape), .integer(_, let shape), .bool(_, let shape),
      .string(_, let shape):
      shape
    }
  }

  /// The number of elements.
  package var count: Int {
    switch self {
    case .float(let tensor): tensor.count
    case .double(let values, _): values.count
    case .integer(let values, _): values.count
    case .bool(let values, _): values.count
    case .string(let values, _): values.count
    }
  }
}
