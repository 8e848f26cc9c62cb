/// A Core ML ML Program (a MIL `Program`, the `mlProgram` field of a `Model`), as the file
/// holds it: named functions whose blocks list operations in topological order.
///
/// Nothing here is lowered or run; it is the checked, in-memory form of MIL.proto that a later
/// lowering step reads.
package struct MILProgram: Sendable, Equatable {
  /// The program format's version (1 for every converter so far).
  package var version: Int64
  /// The functions by name; converters write one, `main`.
  package var functions: [String: MILFunction]
  /// Free text.
  package var docString: String
  /// Any other attributes.
  package var attributes: [String: MILValue]

  /// Creates a program.
  package init(
    version: Int64, functions: [String: MILFunction], docString: String = "",
    attributes: [String: MILValue] = [:]
  ) {
    self.version = version
    self.functions = functions
    self.docString = docString
    self.attributes = attributes
  }
}
