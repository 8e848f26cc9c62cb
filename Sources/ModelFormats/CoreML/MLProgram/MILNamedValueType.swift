/// A name and the type of the value it stands for (function inputs, operation outputs).
package struct MILNamedValueType: Sendable, Equatable {
  /// The name.
  package var name: String
  /// The type; `nil` when the file leaves it out.
  package var type: MILValueType?

  /// Creates a named type.
  package init(name: String, type: MILValueType?) {
    self.name = name
    self.type = type
  }
}
