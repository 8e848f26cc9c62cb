/// Matrix products and tensor contractions.
enum MatrixOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry("Gemm", attributes: ["alpha", "beta", "transA", "transB"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planGemm(node)
    },
    OperatorEntry("MatMul") { builder, node throws(NeuralCoreError) in try builder.planMatMul(node)
    }.rewriting { graph, index, uses throws(NeuralCoreError) in
      graph.foldLinearBias(at: index, uses: uses) || graph.foldInputScale(at: index, uses: uses)
    },
    OperatorEntry("Einsum", opsets: .since(12), attributes: ["equation"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planEinsum(node)
    },
  ]
}
