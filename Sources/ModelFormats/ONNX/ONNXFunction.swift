/// A model-local function (`FunctionProto`): a named subgraph that nodes call by domain and name.
///
/// Exporters emit these for composite operators; an executor inlines a node whose `domain` and
/// `opType` match a function's ``domain`` and ``name``.
package struct ONNXFunction: Sendable, Hashable {
  /// The function's name, matched against a node's `opType`.
  package var name: String
  /// The function's domain, matched against a node's `domain`.
  package var domain: String
  /// The formal input names, bound to the calling node's inputs by position.
  package var inputs: [String]
  /// The formal output names, bound to the calling node's outputs by position.
  package var outputs: [String]
  /// The names of the attributes a caller may set.
  package var attributeNames: [String]
  /// Attributes with default values.
  package var defaultAttributes: [ONNXAttribute]
  /// The body, in order.
  package var nodes: [ONNXNode]
  /// The operator sets the body uses.
  package var opsetImports: [ONNXOperatorSetID]

  /// Creates a function.
  ///
  /// - Parameters:
  ///   - name: The function's name.
  ///   - domain: The function's domain.
  ///   - inputs: The formal input names.
  ///   - outputs: The formal output names.
  ///   - attributeNames: The names of the attributes a caller may set.
  ///   - defaultAttributes: Attributes with default values.
  ///   - nodes: The body.
  ///   - opsetImports: The operator sets the body uses.
  package init(
    name: String, domain: String, inputs: [String], outputs: [String], attributeNames: [String],
    defaultAttributes: [ONNXAttribute], nodes: [ONNXNode], opsetImports: [ONNXOperatorSetID]
  ) {
    self.name = name
    self.domain = domain
    self.inputs = inputs
    self.outputs = outputs
    self.attributeNames = attributeNames
    self.defaultAttributes = defaultAttributes
    self.nodes = nodes
    self.opsetImports = opsetImports
  }
}
