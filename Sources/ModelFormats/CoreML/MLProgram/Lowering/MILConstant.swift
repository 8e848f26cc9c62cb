import NeuralCore

/// A value the program fixes before it runs: a `const` operation's, a decompressed weight's, an
/// immediate argument's, or one folded from them.
struct MILConstant: Sendable {
  /// The elements, widened: every float type to `Float`, every integer type to `Int64`.
  enum Values: Sendable {
    case floats([Float])
    case integers([Int64])
    case bools([Bool])
    case strings([String])

    /// The number of elements.
    var count: Int {
      switch self {
      case .floats(let values): values.count
      case .integers(let values): values.count
      case .bools(let values): values.count
      case .strings(let values): values.count
      }
    }
  }

  /// The tensor's shape; `[]` for a scalar.
  var shape: [Int]
  /// The elements, in row-major order.
  var values: Values

  /// The number of elements.
  var count: Int { values.count }

  /// The elements as floats (integers and booleans converted).
  func floats(_ what: String) throws(ModelFormatsError) -> [Float] {
    switch values {
    case .floats(let values): return values
    case .integers(let values): return values.map { Float($0) }
    case .bools(let values): return values.map { $0 ? 1 : 0 }
    case .strings:
      throw ModelFormatsError(.malformedFile, "ML Program: \(what) holds strings, not numbers")
    }
  }

  /// The elements as integers; floats must be whole numbers.
  func integers(_ what: String) throws(ModelFormatsError) -> [Int64] {
    switch values {
    case .integers(let values): return values
    case .bools(let values): return values.map { $0 ? 1 : 0 }
    case .floats(let values):
      var result: [Int64] = []
      result.reserveCapacity(values.count)
      for value in values {
        guard value.rounded() == value, abs(value) < 1e15 else {
          throw ModelFormatsError(
            .malformedFile, "ML Program: \(what) holds \(value), not integers")
        }
        result.append(Int64(value))
      }
      return result
    case .strings:
      throw ModelFormatsError(.malformedFile, "ML Program: \(what) holds strings, not integers")
    }
  }

  /// The elements as text (numbers printed as integers where they are whole).
  func strings() -> [String] {
    switch values {
    case .strings(let values): values
    case .integers(let values): values.map(String.init)
    case .bools(let values): values.map(String.init)
    case .floats(let values): values.map { String($0) }
    }
  }

  /// The value as an ONNX initializer named `name`: floats as `float`, integers as `int64`,
  /// booleans as `bool`.
  func tensor(named name: String) throws(ModelFormatsError) -> ONNXTensor {
    switch values {
    case .floats(let values):
      return ONNXTensor(
        name: name, dataType: .float, value: .float(try Tensor(fileShape: shape, scalars: values)))
    case .integers(let values):
      return ONNXTensor(name: name, dataType: .int64, value: .integer(values, shape: shape))
    case .bools(let values):
      return ONNXTensor(name: name, dataType: .bool, value: .bool(values, shape: shape))
    case .strings:
      throw ModelFormatsError(
        .unsupported, "ML Program: '\(name)' is a string tensor, which no computation takes")
    }
  }
}
