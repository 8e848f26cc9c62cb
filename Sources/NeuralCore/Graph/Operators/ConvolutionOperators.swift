/// Convolutions and pooling windows.
enum ConvolutionOperators {
  /// The attributes every sliding window reads.
  private static let window: Set<String> = [
    "auto_pad", "dilations", "kernel_shape", "pads", "strides",
  ]

  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry("Conv", attributes: window.union(["group"])) {
      builder, node throws(NeuralCoreError) in try builder.planConvolution(node)
    }
    .blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedConvolution(node, layout)
    },
    OperatorEntry(
      "ConvTranspose", attributes: window.union(["group", "output_padding", "output_shape"])
    ) { builder, node throws(NeuralCoreError) in try builder.planTransposedConvolution(node) },
    OperatorEntry("MaxPool", attributes: window.union(["ceil_mode", "storage_order"])) {
      builder, node throws(NeuralCoreError) in
      try builder.planPooling(node, maximum: true)
    }
    .blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedMaxPool(node, layout)
    },
    OperatorEntry("AveragePool", attributes: window.union(["ceil_mode", "count_include_pad"])) {
      builder, node throws(NeuralCoreError) in
      try builder.planPooling(node, maximum: false)
    },
    OperatorEntry("GlobalAveragePool") { builder, node throws(NeuralCoreError) in
      try builder.planGlobalAveragePool(node)
    }
    .blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedGlobalAverage(node, layout)
    },
    OperatorEntry("GlobalMaxPool") { builder, node throws(NeuralCoreError) in
      try builder.planGlobalMaxPool(node)
    },
  ]
}
