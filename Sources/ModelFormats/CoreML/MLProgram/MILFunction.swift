/// A function of a MIL program: typed inputs and one block per opset it is written in.
package struct MILFunction: Sendable, Equatable {
  /// The inputs, by name and type (unordered in the format; kept in file order).
  package var inputs: [MILNamedValueType]
  /// The opset whose block is the active one (`CoreML5`, `CoreML6`, ...).
  package var opset: String
  /// The function's body per opset name.
  package var blockSpecializations: [String: MILBlock]
  /// Any other attributes.
  package var attributes: [String: MILValue]

  /// Creates a function.
  package init(
    inputs: [MILNamedValueType], opset: String, blockSpecializations: [String: MILBlock],
    attributes: [String: MILValue] = [:]
  ) {
    self.inputs = inputs
    self.opset = opset
    self.blockSpecializations = blockSpecializations
    self.attributes = attributes
  }

  /// The active block, the one written in ``opset`` (the reader checks it exists).
  package var block: MILBlock? { blockSpecializations[opset] }
}
