import NeuralCore

/// One MIL operation type this importer lowers: the parameters it accepts and how its
/// operations become ONNX nodes (or constants).
///
/// Entries are declared by family (`MILConvolutionOperators`, `MILLayoutOperators`, ...) and
/// collected by ``MILOperatorRegistry``; supporting an operation means adding one entry.
struct MILOperatorEntry: Sendable {
  /// Lowers one operation of this type.
  typealias Lowering =
    @Sendable (inout MILProgramLowering, MILOperation) throws(ModelFormatsError) -> Void

  /// The operation type, as MIL spells it (`conv`, `reduce_mean`).
  let type: String
  /// The parameters it accepts; an operation that binds any other is refused.
  let inputs: Set<String>
  /// Lowers one operation.
  let lower: Lowering

  /// Declares an operation type.
  init(_ type: String, inputs: Set<String>, lower: @escaping Lowering) {
    self.type = type
    self.inputs = inputs
    self.lower = lower
  }
}
