/// Every MIL operation type this importer lowers, by type, collected from the families.
enum MILOperatorRegistry {
  /// The entries of every family.
  static let all: [MILOperatorEntry] =
    MILConstantOperators.entries + MILConvolutionOperators.entries
    + MILActivationOperators.entries + MILElementwiseOperators.entries
    + MILNormalizationOperators.entries + MILReductionOperators.entries
    + MILMatrixOperators.entries + MILLayoutOperators.entries + MILResizeOperators.entries

  /// The entries by operation type (the first of a duplicated type; a test checks there are
  /// none).
  static let entries: [String: MILOperatorEntry] = Dictionary(
    all.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
}
