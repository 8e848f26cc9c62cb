/// Broadcasting arithmetic of two or more tensors.
enum ElementwiseOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    binary("Add", .add).blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedAdd(node, layout)
    },
    binary("Sub", .subtract),
    binary("Mul", .multiply).multiplyingGates()
      .blocked { builder, node, layout throws(NeuralCoreError) in
        try builder.planBlockedMul(node, layout)
      }
      .rewriting { graph, index, uses throws(NeuralCoreError) in
        try graph.foldChannelScale(at: index, uses: uses)
      }, binary("Div", .divide),
    binary("Pow", .power), binary("PRelu", .prelu),
    OperatorEntry("Mod", opsets: .since(10), attributes: ["fmod"]) {
      builder, node throws(NeuralCoreError) in
      let truncates = try node.attributes.int("fmod", default: 0) != 0
      try builder.planBinary(node, truncates ? .remainder : .modulo)
    },
    variadic("Max", .maximum), variadic("Min", .minimum), variadic("Sum", .add),
    variadic("Mean", .add, isMean: true),
  ]

  /// The entry of a broadcasting binary operator computing `operation`.
  private static func binary(
    _ name: String, _ operation: Elementwise.Operation
  ) -> OperatorEntry {
    OperatorEntry(name) { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, operation)
    }.perElement()
  }

  /// The entry of an operator folding any number of tensors with `operation`.
  private static func variadic(
    _ name: String, _ operation: Elementwise.Operation, isMean: Bool = false
  ) -> OperatorEntry {
    OperatorEntry(name) { builder, node throws(NeuralCoreError) in
      try builder.planVariadic(node, operation, isMean: isMean)
    }.perElement()
  }
}
