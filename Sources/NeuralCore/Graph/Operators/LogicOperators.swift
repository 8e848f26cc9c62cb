/// Comparisons, logical operators and selection by a condition.
enum LogicOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] = [
    comparison("Equal", .equal), comparison("Less", .less), comparison("Greater", .greater),
    comparison("LessOrEqual", .lessOrEqual, since: 12),
    comparison("GreaterOrEqual", .greaterOrEqual, since: 12),
    comparison("And", .and), comparison("Or", .or), comparison("Xor", .xor),
    OperatorEntry("Not") { builder, node throws(NeuralCoreError) in try builder.planNot(node) },
    OperatorEntry("Where", opsets: .since(9)) { builder, node throws(NeuralCoreError) in
      try builder.planWhere(node)
    },
  ]

  /// The entry of a comparison or logical operator computing `operation` (1 or 0).
  private static func comparison(
    _ name: String, _ operation: Elementwise.Operation, since first: Int = 1
  ) -> OperatorEntry {
    OperatorEntry(name, opsets: .since(first)) { builder, node throws(NeuralCoreError) in
      try builder.planComparison(node, operation)
    }
  }
}
