/// Operators that rename, reshape, cast or compute shapes, mostly folded while planning.
enum ShapeOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry(
      "Constant", attributes: ["value", "value_float", "value_floats", "value_int", "value_ints"]
    ) { builder, node throws(NeuralCoreError) in
      try builder.bind(node, .constant(try ImportedGraph.constantValue(node.attributes)))
    }
    .folding { attributes throws(NeuralCoreError) in try ImportedGraph.constantValue(attributes) },
    OperatorEntry("Identity") { builder, node throws(NeuralCoreError) in
      try builder.planIdentity(node)
    },
    OperatorEntry("Dropout", attributes: ["ratio", "seed"]) {
      builder, node throws(NeuralCoreError) in try builder.planDropout(node)
    },
    OperatorEntry("Flatten", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
      try builder.planFlatten(node)
    },
    OperatorEntry("Reshape", opsets: .since(5), attributes: ["allowzero"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planReshape(node)
    },
    OperatorEntry("Squeeze", attributes: ["axes"]) { builder, node throws(NeuralCoreError) in
      try builder.planSqueeze(node)
    },
    OperatorEntry("Unsqueeze", attributes: ["axes"]) { builder, node throws(NeuralCoreError) in
      try builder.planUnsqueeze(node)
    },
    OperatorEntry("Shape", attributes: ["start", "end"]) { builder, node throws(NeuralCoreError) in
      try builder.planShape(node)
    },
    OperatorEntry("Cast", attributes: ["to", "saturate"]) { builder, node throws(NeuralCoreError) in
      try builder.planCast(node)
    },
    OperatorEntry("CastLike", opsets: .since(15), attributes: ["saturate"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planCastLike(node)
    },
    OperatorEntry("Range", opsets: .since(11)) { builder, node throws(NeuralCoreError) in
      try builder.planRange(node)
    },
    OperatorEntry("ConstantOfShape", opsets: .since(9), attributes: ["value"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planConstantOfShape(node)
    },
  ]
}
