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
    }.readingIntegerTensors(),
    OperatorEntry("Dropout", attributes: ["ratio", "seed"]) {
      builder, node throws(NeuralCoreError) in try builder.planDropout(node)
    },
    OperatorEntry("Flatten", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
      try builder.planFlatten(node)
    }.readingIntegerTensors(),
    OperatorEntry("Reshape", opsets: .since(5), attributes: ["allowzero"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planReshape(node)
    }.readingIntegerTensors(),
    OperatorEntry("Squeeze", attributes: ["axes"]) { builder, node throws(NeuralCoreError) in
      try builder.planSqueeze(node)
    }.readingIntegerTensors(),
    OperatorEntry("Unsqueeze", attributes: ["axes"]) { builder, node throws(NeuralCoreError) in
      try builder.planUnsqueeze(node)
    }.readingIntegerTensors(),
    OperatorEntry("Shape", attributes: ["start", "end"]) { builder, node throws(NeuralCoreError) in
      try builder.planShape(node)
    },
    OperatorEntry("Cast", attributes: ["to", "saturate"]) { builder, node throws(NeuralCoreError) in
      try builder.planCast(node)
    }.readingIntegerTensors(),
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
