/// A named attribute of an ONNX node.
package struct ONNXAttribute: Sendable, Hashable {
  /// The attribute's name, such as `kernel_shape` or `auto_pad`.
  package var name: String
  /// The attribute's value.
  package var value: ONNXAttributeValue

  /// Creates an attribute.
  ///
  /// - Parameters:
  ///   - name: The attribute's name.
  ///   - value: The attribute's value.
  package init(name: String, value: ONNXAttributeValue) {
    self.name = name
    self.value = value
  }
}
