/// One operation of a block: its type (`conv`, `relu`, `const`, ...), named arguments, typed
/// outputs, nested blocks for control flow and attributes (a `const`'s value is its `val`
/// attribute).
package struct MILOperation: Sendable, Equatable {
  /// The operation's type, such as `conv` or `const`.
  package var type: String
  /// The arguments by parameter name.
  package var inputs: [String: MILArgument]
  /// The names and types of the values it defines.
  package var outputs: [MILNamedValueType]
  /// Nested blocks (the branches of `cond`, the body of `while_loop`).
  package var blocks: [MILBlock]
  /// Attributes such as a `const`'s `val` and the operation's `name`.
  package var attributes: [String: MILValue]

  /// Creates an operation.
  package init(
    type: String, inputs: [String: MILArgument] = [:], outputs: [MILNamedValueType],
    blocks: [MILBlock] = [], attributes: [String: MILValue] = [:]
  ) {
    self.type = type
    self.inputs = inputs
    self.outputs = outputs
    self.blocks = blocks
    self.attributes = attributes
  }
}
