import NeuralCore

/// Activations: each one ONNX operator where ONNX has it (`relu`, `sigmoid_hard`, `gelu`, ...),
/// a few nodes where it does not (`silu`, `relu6`, `linear_activation`, ...).
enum MILActivationOperators {
  static let entries: [MILOperatorEntry] = [
    direct("relu", "Relu"), direct("sigmoid", "Sigmoid"), direct("tanh", "Tanh"),
    direct("softplus", "Softplus"), direct("softsign", "Softsign"), direct("erf", "Erf"),
    withAlpha("leaky_relu", "LeakyRelu", 0.01), withAlpha("elu", "Elu", 1),
    withAlpha("thresholded_relu", "ThresholdedRelu", 1),
    MILOperatorEntry("relu6", inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
      try clip(&lowering, operation, low: 0, high: 6)
    },
    MILOperatorEntry("clip", inputs: ["x", "alpha", "beta"]) {
      lowering, operation throws(ModelFormatsError) in
      try clip(
        &lowering, operation, low: lowering.float(operation, "alpha", default: nil),
        high: lowering.float(operation, "beta", default: nil))
    },
    MILOperatorEntry("sigmoid_hard", inputs: ["x", "alpha", "beta"]) {
      lowering, operation throws(ModelFormatsError) in
      let alpha = try lowering.float(operation, "alpha", default: 0.2)
      let beta = try lowering.float(operation, "beta", default: 0.5)
      try lowering.emit(
        "HardSigmoid", operation, [lowering.tensor(operation, "x")],
        [.init(name: "alpha", value: .float(alpha)), .init(name: "beta", value: .float(beta))])
    },
    MILOperatorEntry("silu", inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
      let x = try lowering.tensor(operation, "x")
      let name = MILProgramLowering.name(of: operation)
      lowering.emit("Sigmoid", name + "__sigmoid", [x], [name + "__sigmoid"])
      try lowering.emit("Mul", operation, [x, name + "__sigmoid"])
    },
    MILOperatorEntry("gelu", inputs: ["x", "mode"]) {
      lowering, operation throws(ModelFormatsError) in
      let x = try lowering.tensor(operation, "x")
      let name = MILProgramLowering.name(of: operation)
      switch try lowering.string(operation, "mode", default: "EXACT") {
      case "EXACT":
        try lowering.emit("Gelu", operation, [x])
      case "TANH_APPROXIMATION":
        try lowering.emit(
          "Gelu", operation, [x], [.init(name: "approximate", value: .string("tanh"))])
      case "SIGMOID_APPROXIMATION":
        // x * sigmoid(1.702 x)
        let factor = try lowering.floatConstant(name + "__factor", [1.702], shape: [])
        lowering.emit("Mul", name + "__scaled", [x, factor], [name + "__scaled"])
        lowering.emit("Sigmoid", name + "__sigmoid", [name + "__scaled"], [name + "__sigmoid"])
        try lowering.emit("Mul", operation, [x, name + "__sigmoid"])
      case let other:
        throw ModelFormatsError(.unsupported, "ML Program: '\(name)' is gelu in mode '\(other)'")
      }
    },
    MILOperatorEntry("prelu", inputs: ["x", "alpha"]) {
      lowering, operation throws(ModelFormatsError) in
      // One slope per channel (axis 1), shaped to broadcast over the spatial axes.
      let rank = try lowering.requiredRank(operation, "x")
      let name = MILProgramLowering.name(of: operation)
      let slopes = try lowering.requiredConstant(operation, "alpha").floats("'\(name)' alpha")
      let slope = try lowering.floatConstant(
        name + "__slope", slopes,
        shape: [slopes.count] + [Int](repeating: 1, count: max(rank - 2, 0)))
      try lowering.emit("PRelu", operation, [lowering.tensor(operation, "x"), slope])
    },
    MILOperatorEntry("linear_activation", inputs: ["x", "alpha", "beta"]) {
      lowering, operation throws(ModelFormatsError) in
      // alpha * x + beta
      let name = MILProgramLowering.name(of: operation)
      let alpha = try lowering.floatConstant(
        name + "__alpha", [lowering.float(operation, "alpha", default: nil)], shape: [])
      let beta = try lowering.floatConstant(
        name + "__beta", [lowering.float(operation, "beta", default: 0)], shape: [])
      lowering.emit(
        "Mul", name + "__scaled", [try lowering.tensor(operation, "x"), alpha], [name + "__scaled"])
      try lowering.emit("Add", operation, [name + "__scaled", beta])
    },
    MILOperatorEntry("scaled_tanh", inputs: ["x", "alpha", "beta"]) {
      lowering, operation throws(ModelFormatsError) in
      // alpha * tanh(beta * x)
      let name = MILProgramLowering.name(of: operation)
      let alpha = try lowering.floatConstant(
        name + "__alpha", [lowering.float(operation, "alpha", default: 1)], shape: [])
      let beta = try lowering.floatConstant(
        name + "__beta", [lowering.float(operation, "beta", default: 1)], shape: [])
      lowering.emit(
        "Mul", name + "__scaled", [try lowering.tensor(operation, "x"), beta], [name + "__scaled"])
      lowering.emit("Tanh", name + "__tanh", [name + "__scaled"], [name + "__tanh"])
      try lowering.emit("Mul", operation, [name + "__tanh", alpha])
    },
    MILOperatorEntry("clamped_relu", inputs: ["x", "alpha", "beta"]) {
      lowering, operation throws(ModelFormatsError) in
      // min(beta, x) for x >= 0, min(beta, alpha * x) below: a leaky ReLU capped at beta.
      let name = MILProgramLowering.name(of: operation)
      let alpha = try lowering.float(operation, "alpha", default: nil)
      let beta = try lowering.floatConstant(
        name + "__beta", [lowering.float(operation, "beta", default: nil)], shape: [])
      lowering.emit(
        "LeakyRelu", name + "__leaky", [try lowering.tensor(operation, "x")], [name + "__leaky"],
        [.init(name: "alpha", value: .float(alpha))])
      try lowering.emit("Min", operation, [name + "__leaky", beta])
    },
    MILOperatorEntry("softmax", inputs: ["x", "axis"]) {
      lowering, operation throws(ModelFormatsError) in
      let axis = try lowering.integer(operation, "axis", default: -1)
      try lowering.emit(
        "Softmax", operation, [lowering.tensor(operation, "x")],
        [.init(name: "axis", value: .int(Int64(axis)))])
    },
  ]

  /// An activation that is one ONNX operator on `x`.
  static func direct(_ type: String, _ onnx: String) -> MILOperatorEntry {
    MILOperatorEntry(type, inputs: ["x"]) { lowering, operation throws(ModelFormatsError) in
      try lowering.emit(onnx, operation, [lowering.tensor(operation, "x")])
    }
  }

  private static func withAlpha(_ type: String, _ onnx: String, _ defaultAlpha: Float)
    -> MILOperatorEntry
  {
    MILOperatorEntry(type, inputs: ["x", "alpha"]) {
      lowering, operation throws(ModelFormatsError) in
      let alpha = try lowering.float(operation, "alpha", default: defaultAlpha)
      try lowering.emit(
        onnx, operation, [lowering.tensor(operation, "x")],
        [.init(name: "alpha", value: .float(alpha))])
    }
  }

  private static func clip(
    _ lowering: inout MILProgramLowering, _ operation: MILOperation, low: Float, high: Float
  ) throws(ModelFormatsError) {
    let name = MILProgramLowering.name(of: operation)
    let minimum = try lowering.floatConstant(name + "__min", [low], shape: [])
    let maximum = try lowering.floatConstant(name + "__max", [high], shape: [])
    try lowering.emit("Clip", operation, [lowering.tensor(operation, "x"), minimum, maximum])
  }
}
