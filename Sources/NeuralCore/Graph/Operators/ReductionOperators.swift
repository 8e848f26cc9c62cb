/// Reductions over axes and cumulative sums along one.
enum ReductionOperators {
  /// The family's registry entries: one per ``Reduction``, and `CumSum`.
  static let entries: [OperatorEntry] =
    Reduction.allCases.map { reduction in
      let entry = OperatorEntry(
        reduction.rawValue, attributes: ["axes", "keepdims", "noop_with_empty_axes"]
      ) { builder, node throws(NeuralCoreError) in try builder.planReduction(node, reduction) }
      guard reduction == .mean else { return entry }
      // The mean over a blocked image's positions is its global average pool.
      return entry.blocked { builder, node, layout throws(NeuralCoreError) in
        try builder.planBlockedSpatialMean(node, layout)
      }
    } + [
      OperatorEntry("CumSum", opsets: .since(11), attributes: ["exclusive", "reverse"]) {
        builder, node throws(NeuralCoreError) in
        try builder.planCumulativeSum(node)
      }
    ]
}
