extension ONNXAttributeValue {
  /// The value when the attribute is an integer.
  package var intValue: Int64? {
    guard case .int(let value) = self else { return nil }
    return value
  }

  /// The value when the attribute is a float; integers convert, as ONNX tools sometimes write
  /// `alpha=1` as an integer.
  package var floatValue: Float? {
    switch self {
    case .float(let value): value
    case .int(let value): Float(value)
    default: nil
    }
  }

  /// The value when the attribute is a string.
  package var stringValue: String? {
    guard case .string(let value) = self else { return nil }
    return value
  }

  /// The tensor when the attribute is a tensor.
  package var tensorValue: ONNXTensor? {
    guard case .tensor(let value) = self else { return nil }
    return value
  }
}
