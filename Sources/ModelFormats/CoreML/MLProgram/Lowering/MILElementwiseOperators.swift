import NeuralCore

/// Element-wise arithmetic, comparisons and logic on two tensors (NumPy broadcasting, as in
/// ONNX), `select`, and the unary functions.
enum MILElementwiseOperators {
  static let entries: [MILOperatorEntry] =
    [
      ("sub", "Sub"), ("mul", "Mul"), ("real_div", "Div"), ("pow", "Pow"),
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
      MILOperatorEntry("add", inputs: ["x", "y"]) { lowering, operation throws(ModelFormatsError) in
        let x = try lowering.tensor(operation, "x")
        let y = try lowering.tensor(operation, "y")
        if try fuseAffine(&lowering, operation, x: x, y: y) { return }
        try lowering.emit("Add", operation, [x, y])
      },
      binary("not_equal", "Equal", then: "Not"), binary("floor_div", "Div", then: "Floor"),
      MILOperatorEntry("select", inputs: ["cond", "a", "b"]) {
        lowering, operation throws(ModelFormatsError) in
        try lowering.emit(
          "Where", operation,
          [
            lowering.tensor(operation, "cond"), lowering.tensor(operation, "a"),
            lowering.tensor(operation, "b"),
          ])
      },
      MILOperatorEntry("square", inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
        let x = try lowering.tensor(operation, "x")
        try lowering.emit("Mul", operation, [x, x])
      },
      MILOperatorEntry("exp2", inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
        let two = try lowering.floatConstant(
          MILProgramLowering.name(of: operation) + "__two", [2], shape: [])
        try lowering.emit("Pow", operation, [two, lowering.tensor(operation, "x")])
      },
      MILOperatorEntry("threshold", inputs: ["x", "alpha"]) {
        lowering, operation throws(ModelFormatsError) in
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

  /// `x * factors + shifts` over the channels of a 4-D tensor, as coremltools writes an image
  /// input's scale and biases, as one `BatchNormalization` step (mean 0, variance 1, epsilon 0:
  /// exactly the scale and the shift) instead of two passes over the image; `false` when
  /// `x` is not such a scaling read only by this `add`.
  private static func fuseAffine(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, x: String, y: String
  ) throws(ModelFormatsError) -> Bool {
    // The node just emitted must be the `mul` of a 4-D tensor by constants that computes `x`,
    // read by nothing but this `add`.
    guard let scaling = lowering.nodes.last, scaling.opType == "Mul", scaling.outputs == [x],
      lowering.uses[x] == 1, scaling.inputs.count == 2, lowering.rank(of: scaling.inputs[0]) == 4,
      let factor = lowering.constants[scaling.inputs[1]], let shift = lowering.constants[y],
      let channels = lowering.dimension(of: scaling.inputs[0], axis: 1)
    else { return false }
    // Each operand is one value, or one per channel shaped [1, C, 1, 1] or [C, 1, 1].
    let perChannel = { (values: [Float], shape: [Int]) -> [Float]? in
      if values.count == 1 { return [Float](repeating: values[0], count: channels) }
      guard values.count == channels, shape.count >= 3, shape.count <= 4,
        shape[shape.count - 3] == channels, shape.filter({ $0 != 1 }) == [channels]
      else { return nil }
      return values
    }
    guard let factors = perChannel(try factor.floats(scaling.inputs[1]), factor.shape),
      let biases = perChannel(try shift.floats(y), shift.shape)
    else { return false }
    lowering.nodes.removeLast()
    let name = MILProgramLowering.name(of: operation)
    let inputs = [
      scaling.inputs[0],
      try lowering.floatConstant(name + "__factors", factors, shape: [channels]),
      try lowering.floatConstant(name + "__shifts", biases, shape: [channels]),
      try lowering.floatConstant(
        name + "__zeros", [Float](repeating: 0, count: channels), shape: [channels]),
      try lowering.floatConstant(
        name + "__ones", [Float](repeating: 1, count: channels), shape: [channels]),
    ]
    try lowering.emit(
      "BatchNormalization", operation, inputs, [.init(name: "epsilon", value: .float(0))])
    return true
  }

  /// An operation on `x` and `y` that is one ONNX operator, or one followed by a unary one
  /// (`not_equal` is `Not(Equal)`, `floor_div` is `Floor(Div)`).
  private static func binary(_ type: String, _ onnx: String, then unary: String? = nil)
    -> MILOperatorEntry
  {
    MILOperatorEntry(type, inputs: ["x", "y"]) { lowering, operation throws(ModelFormatsError) in
      let operands = [try lowering.tensor(operation, "x"), try lowering.tensor(operation, "y")]
      guard let unary else {
        try lowering.emit(onnx, operation, operands)
        return
      }
      let inner = MILProgramLowering.name(of: operation) + "__" + onnx.lowercased()
      lowering.emit(onnx, inner, operands, [inner])
      try lowering.emit(unary, operation, [inner])
    }
  }

  /// `f(x + epsilon)`, `f` one ONNX operator or a chain of them.
  private static func withEpsilon(_ type: String, _ chain: [String], _ defaultEpsilon: Float)
    -> MILOperatorEntry
  {
    MILOperatorEntry(type, inputs: ["x", "epsilon"]) {
      lowering, operation throws(ModelFormatsError) in
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
