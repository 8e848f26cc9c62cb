/// Broadcasting arithmetic of two or more tensors.
enum ElementwiseOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry("Add") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .add)
    }
    .blocked { builder, node, layout throws(NeuralCoreError) in
      try builder.planBlockedAdd(node, layout)
    },
    OperatorEntry("Sub") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .subtract)
    },
    OperatorEntry("Mul") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .multiply)
    },
    OperatorEntry("Div") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .divide)
    },
    OperatorEntry("Pow") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .power)
    },
    OperatorEntry("PRelu") { builder, node throws(NeuralCoreError) in
      try builder.planBinary(node, .prelu)
    },
    OperatorEntry("Mod", opsets: .since(10), attributes: ["fmod"]) {
      builder, node throws(NeuralCoreError) in
      let truncates = try node.attributes.int("fmod", default: 0) != 0
      try builder.planBinary(node, truncates ? .remainder : .modulo)
    },
    OperatorEntry("Max") { builder, node throws(NeuralCoreError) in
      try builder.planVariadic(node, .maximum)
    },
    OperatorEntry("Min") { builder, node throws(NeuralCoreError) in
      try builder.planVariadic(node, .minimum)
    },
    OperatorEntry("Sum") { builder, node throws(NeuralCoreError) in
      try builder.planVariadic(node, .add)
    },
    OperatorEntry("Mean") { builder, node throws(NeuralCoreError) in
      try builder.planVariadic(node, .add, isMean: true)
    },
  ]
}
