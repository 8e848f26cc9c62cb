/// Operators that move, select, join or repeat elements.
enum LayoutOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry("Transpose", attributes: ["perm"]) { builder, node throws(NeuralCoreError) in
      try builder.planTranspose(node)
    }
    .blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedTranspose(node, layout)
    },
    OperatorEntry("Concat", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
      try builder.planConcat(node)
    },
    OperatorEntry("Split", attributes: ["axis", "split", "num_outputs"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planSplit(node)
    },
    OperatorEntry("Pad", attributes: ["mode", "pads", "value"]) {
      builder, node throws(NeuralCoreError) in try builder.planPad(node)
    },
    OperatorEntry("Gather", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
      try builder.planGather(node)
    },
    OperatorEntry("Slice", attributes: ["starts", "ends", "axes"]) {
      builder, node throws(NeuralCoreError) in try builder.planSlice(node)
    },
    OperatorEntry("Expand", opsets: .since(8)) { builder, node throws(NeuralCoreError) in
      try builder.planExpand(node)
    },
    OperatorEntry("Tile") { builder, node throws(NeuralCoreError) in try builder.planTile(node) },
    OperatorEntry("DepthToSpace", attributes: ["blocksize", "mode"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planDepthSpace(node, toSpace: true)
    },
    OperatorEntry("SpaceToDepth", attributes: ["blocksize", "mode"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planDepthSpace(node, toSpace: false)
    },
    OperatorEntry("GatherElements", opsets: .since(11), attributes: ["axis"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planGatherElements(node)
    },
    OperatorEntry("ScatterND", opsets: .since(11), attributes: ["reduction"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planScatterND(node)
    },
  ]
}
