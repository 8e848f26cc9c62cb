/// Normalizations over channels, features or windows.
enum NormalizationOperators {
  /// The attributes of the layer normalizations.
  private static let layer: Set<String> = ["axis", "epsilon", "stash_type"]

  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry(
      "BatchNormalization", attributes: ["epsilon", "momentum", "spatial", "training_mode"]
    ) { builder, node throws(NeuralCoreError) in try builder.planBatchNormalization(node) },
    OperatorEntry("LayerNormalization", opsets: .since(17), attributes: layer) {
      builder, node throws(NeuralCoreError) in
      try builder.planLayerNormalization(node, centering: true)
    },
    OperatorEntry("RMSNormalization", opsets: .since(23), attributes: layer) {
      builder, node throws(NeuralCoreError) in
      try builder.planLayerNormalization(node, centering: false)
    },
    OperatorEntry("InstanceNormalization", attributes: ["epsilon"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planChannelNormalization(node, scaled: true)
    },
    OperatorEntry("MeanVarianceNormalization", opsets: .since(9), attributes: ["axes"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planChannelNormalization(node, scaled: false)
    },
    OperatorEntry("LRN", attributes: ["alpha", "beta", "bias", "size"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planLocalResponseNormalization(node)
    },
    OperatorEntry("LpNormalization", attributes: ["axis", "p"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planLpNormalization(node)
    },
  ]
}
