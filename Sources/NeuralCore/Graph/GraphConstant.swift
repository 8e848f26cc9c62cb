/// A value known before the network runs: an initializer, a `Constant`, or a folded result.
///
/// Integer values are kept apart from float tensors because shape arithmetic (Shape, Gather,
/// Slice, Concat feeding Reshape) needs them exact.
enum GraphConstant: Sendable {
  case float(Tensor)
  case integer([Int64], shape: [Int])

  var shape: [Int] {
    switch self {
    case .float(let tensor): tensor.shape
    case .integer(_, let shape): shape
    }
  }

  /// Converts an ONNX tensor, or returns `nil` for element types that have no numeric value.
  init?(_ tensor: ONNXTensor) {
    switch tensor.value {
    case .float(let value):
      self = .float(value)
    case .double(let values, let shape):
      guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
        return nil
      }
      self = .float(value)
    case .integer(let values, let shape):
      self = .integer(values, shape: shape)
    case .bool(let values, let shape):
      self = .integer(values.map { $0 ? 1 : 0 }, shape: shape)
    case .string:
      return nil
    }
  }
}
