/// A named attribute of an ONNX node.
public struct ONNXAttribute: Sendable, Hashable {
  /// The attribute's name, such as `kernel_shape` or `auto_pad`.
  public var name: String
  /// The attribute's value.
  public var value: ONNXAttributeValue

  /// Creates an attribute.
  ///
  /// - Parameters:
  ///   - name: The attribute's name.
  ///   - value: The attribute's value.
  public init(name: String, value: ONNXAttributeValue) {
    self.name = name
    self.value = value
  }
}
