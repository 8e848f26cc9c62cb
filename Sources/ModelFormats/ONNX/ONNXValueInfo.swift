/// A named, typed value of a graph: an input, an output or an annotated intermediate.
package struct ONNXValueInfo: Sendable, Hashable {
  /// The value's name, as used by node inputs and outputs.
  package var name: String
  /// The declared type, or `nil` when the model declares none.
  package var type: ONNXValueType?

  /// Creates a value description.
  ///
  /// - Parameters:
  ///   - name: The value's name.
  ///   - type: The declared type.
  package init(name: String, type: ONNXValueType?) {
    self.name = name
    self.type = type
  }
}
