package import NeuralCore

/// A named ONNX tensor (an initializer, a constant or a test-data `TensorProto`) with its elements.
package struct ONNXTensor: Sendable, Hashable {
  /// The tensor's name; empty for anonymous attribute tensors.
  package var name: String
  /// The element type as stored in the file.
  package var dataType: ONNXDataType
  /// The elements.
  package var value: ONNXTensorValue

  /// Creates a tensor.
  ///
  /// - Parameters:
  ///   - name: The tensor's name.
  ///   - dataType: The element type as stored in the file.
  ///   - value: The elements.
  package init(name: String, dataType: ONNXDataType, value: ONNXTensorValue) {
    self.name = name
    self.dataType = dataType
    self.value = value
  }

  /// The dimensions, outermost first.
  package var shape: [Int] { value.shape }

  /// The elements converted to a float32 tensor, for any numeric or boolean type.
  ///
  /// - Returns: The elements as float32 (integers beyond 2^24 and doubles round to nearest).
  /// - Throws: ``ModelFormatsError`` with code `unsupported` for string tensors.
  package func floatTensor() throws(ModelFormatsError) -> Tensor {
    switch value {
    case .float(let tensor):
      return tensor
    case .double(let values, let shape):
      return try Tensor(fileShape: shape, scalars: values.map { Float($0) })
    case .integer(let values, let shape):
      return try Tensor(fileShape: shape, scalars: values.map { Float($0) })
    case .bool(let values, let shape):
      return try Tensor(fileShape: shape, scalars: values.map { $0 ? 1 : 0 })
    case .string:
      throw ModelFormatsError(.unsupported, "tensor '\(name)' holds strings, not numbers")
    }
  }

  /// The elements as integers when the tensor holds integers or booleans.
  ///
  /// Shape, index and axis inputs (Reshape, Gather, Slice) read their values through this.
  /// - Returns: The elements, or `nil` for floating-point and string tensors.
  package func integerValues() -> [Int64]? {
    switch value {
    case .integer(let values, _): values
    case .bool(let values, _): values.map { $0 ? 1 : 0 }
    case .float, .double, .string: nil
    }
  }
}
