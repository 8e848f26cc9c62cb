/// Comparisons, logical operators and selection by a condition.
enum LogicOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    OperatorEntry("Equal") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .equal)
    },
    OperatorEntry("Less") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .less)
    },
    OperatorEntry("Greater") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .greater)
    },
    OperatorEntry("LessOrEqual", opsets: .since(12)) { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .lessOrEqual)
    },
    OperatorEntry("GreaterOrEqual", opsets: .since(12)) { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .greaterOrEqual)
    },
    OperatorEntry("And") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .and)
    },
    OperatorEntry("Or") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .or)
    },
    OperatorEntry("Xor") { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, .xor)
    },
    OperatorEntry("Not") { builder, node throws(NeuralCoreError) in try builder.planNot(node) },
    OperatorEntry("Where", opsets: .since(9)) { builder, node throws(NeuralCoreError) in
      try builder.planWhere(node)
    },
  ]
}
