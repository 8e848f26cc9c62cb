/// One operator application in an ONNX graph.
package struct ONNXNode: Sendable, Hashable {
  /// The node's name; may be empty.
  package var name: String
  /// The operator, such as `Conv` or `Gemm`.
  package var opType: String
  /// The operator set domain; empty for the default `ai.onnx` domain.
  package var domain: String
  /// The names of the input values; an empty name marks an omitted optional input.
  package var inputs: [String]
  /// The names of the output values.
  package var outputs: [String]
  /// The attributes in file order.
  package var attributes: [ONNXAttribute]

  /// Creates a node.
  ///
  /// - Parameters:
  ///   - name: The node's name.
  ///   - opType: The operator.
  ///   - domain: The operator set domain.
  ///   - inputs: The names of the input values.
  ///   - outputs: The names of the output values.
  ///   - attributes: The attributes.
  package init(
    name: String, opType: String, domain: String, inputs: [String], outputs: [String],
    attributes: [ONNXAttribute]
  ) {
    self.name = name
    self.opType = opType
    self.domain = domain
    self.inputs = inputs
    self.outputs = outputs
    self.attributes = attributes
  }

  /// The value of the attribute with the given name.
  ///
  /// - Parameter name: The attribute's name.
  /// - Returns: The value, or `nil` when the node has no such attribute.
  package func attribute(named name: String) -> ONNXAttributeValue? {
    attributes.first { $0.name == name }?.value
  }
}
