/// Reductions over axes and cumulative sums along one.
enum ReductionOperators {
  /// The family's registry entries: one per ``Reduction``, and `CumSum`.
  static let entries: [OperatorEntry] =
    Reduction.allCases.map { reduction in
      OperatorEntry(
        reduction.rawValue, attributes: ["axes", "keepdims", "noop_with_empty_axes"]
      ) { builder, node throws(NeuralCoreError) in try builder.planReduction(node, reduction) }
    } + [
      OperatorEntry("CumSum", opsets: .since(11), attributes: ["exclusive", "reverse"]) {
        builder, node throws(NeuralCoreError) in
        try builder.planCumulativeSum(node)
      }
    ]
}
