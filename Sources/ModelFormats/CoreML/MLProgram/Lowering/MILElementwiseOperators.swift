import NeuralCore

/// Element-wise arithmetic, comparisons and logic on two tensors (NumPy broadcasting, as in
/// ONNX), `select`, and the unary functions.
enum MILElementwiseOperators {
  static let entries: [MILOperatorEntry] =
    [
      ("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("real_div", "Div"), ("pow", "Pow"),
      ("maximum", "Max"), ("minimum", "Min"), ("equal", "Equal"), ("greater", "Greater"),
      ("greater_equal", "GreaterOrEqual"), ("less", "Less"), ("less_equal", "LessOrEqual"),
      ("logical_and", "And"), ("logical_or", "Or"), ("logical_xor", "Xor"),
    ].map { binary($0.0, $0.1) }
    + [
      ("abs", "Abs"), ("acos", "Acos"), ("asin", "Asin"), ("atan", "Atan"), ("atanh", "Atanh"),
      ("ceil", "Ceil"), ("cos", "Cos"), ("cosh", "Cosh"), ("exp", "Exp"), ("floor", "Floor"),
      ("round", "Round"), ("sign", "Sign"), ("sin", "Sin"), ("sinh", "Sinh"), ("sqrt", "Sqrt"),
      ("tan", "Tan"), ("logical_not", "Not"), ("identity", "Identity"),
    ].map { MILActivationOperators.direct($0.0, $0.1) }
    + [
      MILOperatorEntry("not_equal", inputs: ["x", "y"]) {
        lowering, operation throws(NeuralCoreError) in
        let name = MILProgramLowering.name(of: operation)
        lowering.emit(
          "Equal", name + "__equal",
          [try lowering.tensor(operation, "x"), try lowering.tensor(operation, "y")],
          [name + "__equal"])
        try lowering.emit("Not", operation, [name + "__equal"])
      },
      MILOperatorEntry("floor_div", inputs: ["x", "y"]) {
        lowering, operation throws(NeuralCoreError) in
        let name = MILProgramLowering.name(of: operation)
        lowering.emit(
          "Div", name + "__div",
          [try lowering.tensor(operation, "x"), try lowering.tensor(operation, "y")],
          [name + "__div"])
        try lowering.emit("Floor", operation, [name + "__div"])
      },
      MILOperatorEntry("select", inputs: ["cond", "a", "b"]) {
        lowering, operation throws(NeuralCoreError) in
        try lowering.emit(
          "Where", operation,
          [
            lowering.tensor(operation, "cond"), lowering.tensor(operation, "a"),
            lowering.tensor(operation, "b"),
          ])
      },
      MILOperatorEntry("square", inputs: ["x"]) { lowering, operation throws(NeuralCoreError) in
        let x = try lowering.tensor(operation, "x")
        try lowering.emit("Mul", operation, [x, x])
      },
      MILOperatorEntry("exp2", inputs: ["x"]) { lowering, operation throws(NeuralCoreError) in
        let two = try lowering.floatConstant(
          MILProgramLowering.name(of: operation) + "__two", [2], shape: [])
        try lowering.emit("Pow", operation, [two, lowering.tensor(operation, "x")])
      },
      MILOperatorEntry("threshold", inputs: ["x", "alpha"]) {
        lowering, operation throws(NeuralCoreError) in
        // max(x, alpha)
        let alpha = try lowering.floatConstant(
          MILProgramLowering.name(of: operation) + "__alpha",
          [lowering.float(operation, "alpha", default: nil)], shape: [])
        try lowering.emit("Max", operation, [lowering.tensor(operation, "x"), alpha])
      },
      withEpsilon("inverse", ["Reciprocal"], 1e-4),
      withEpsilon("log", ["Log"], .leastNonzeroMagnitude),
      withEpsilon("rsqrt", ["Sqrt", "Reciprocal"], 1e-12),
    ]

  private static func binary(_ type: String, _ onnx: String) -> MILOperatorEntry {
    MILOperatorEntry(type, inputs: ["x", "y"]) { lowering, operation throws(NeuralCoreError) in
      try lowering.emit(
        onnx, operation, [lowering.tensor(operation, "x"), lowering.tensor(operation, "y")])
    }
  }

  /// `f(x + epsilon)`, `f` one ONNX operator or a chain of them.
  private static func withEpsilon(_ type: String, _ chain: [String], _ defaultEpsilon: Float)
    -> MILOperatorEntry
  {
    MILOperatorEntry(type, inputs: ["x", "epsilon"]) {
      lowering, operation throws(NeuralCoreError) in
      let name = MILProgramLowering.name(of: operation)
      let epsilon = try lowering.floatConstant(
        name + "__epsilon", [lowering.float(operation, "epsilon", default: defaultEpsilon)],
        shape: [])
      var current = name + "__shifted"
      lowering.emit("Add", current, [try lowering.tensor(operation, "x"), epsilon], [current])
      for (index, onnx) in chain.enumerated() {
        if index == chain.count - 1 {
          try lowering.emit(onnx, operation, [current])
        } else {
          let next = name + "__" + onnx.lowercased()
          lowering.emit(onnx, next, [current], [next])
          current = next
        }
      }
    }
  }
}
