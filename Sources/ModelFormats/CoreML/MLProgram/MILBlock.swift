/// A basic block in SSA form: operations in topological order and the names it returns.
package struct MILBlock: Sendable, Equatable {
  /// Block-local names for values passed in (loops use them; a function's block has none).
  package var inputs: [MILNamedValueType]
  /// The names of the values the block returns.
  package var outputs: [String]
  /// The operations, each using only names defined before it.
  package var operations: [MILOperation]
  /// Any other attributes.
  package var attributes: [String: MILValue]

  /// Creates a block.
  package init(
    inputs: [MILNamedValueType] = [], outputs: [String], operations: [MILOperation],
    attributes: [String: MILValue] = [:]
  ) {
    self.inputs = inputs
    self.outputs = outputs
    self.operations = operations
    self.attributes = attributes
  }
}
