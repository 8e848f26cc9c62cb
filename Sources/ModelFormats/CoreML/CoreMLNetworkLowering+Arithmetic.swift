import NeuralCore

/// The layers that compute values: normalizations, unary functions, element-wise arithmetic with
/// broadcasting, and scale and bias.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerArithmetic(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError) -> Bool
  {
    switch kind {
    case 160: try batchNormalization(p, c)
    case 170: try l2Normalization(p, c)
    case 180: localResponseNormalization(p, c)
    case 220: try unary(p, c)
    case 230: try elementwise("Add", p, c)
    case 231: try elementwise("Mul", p, c)
    case 240: add("Mean", c, [])
    case 260, 875: add("Max", c, [])
    case 261, 870: add("Min", c, [])
    case 245: try scale(p, c)
    case 250: try bias(p, c)
    case 660: try clip(p, c)
    case 880, 885, 890, 900, 905:
      let names = [880: "Add", 885: "Pow", 890: "Div", 900: "Mul", 905: "Sub"]
      guard c.inputs.count == 2, let op = names[kind] else {
        throw ModelFormatsError(
          .malformedFile, "Core ML layer '\(c.name)' needs 2 inputs, it has \(c.inputs.count)")
      }
      add(op, c, [])
    case 790: add("Erf", c, [])
    case 795: try gelu(p, c)
    case 1045: try batchedMatmul(p, c)
    case 1460:
      // min(beta, x) for x >= 0, min(beta, alpha * x) below: a leaky ReLU capped at beta.
      let leaky = step(
        "LeakyRelu", c.inputs, "leaky", c, [.init(name: "alpha", value: .float(p.float(1)))])
      let cap = try constant(c.name + "__beta", [p.float(2)], shape: [])
      nodes.append(node("Min", c.name, [leaky, cap], c.output))
    default: return false
    }
    return true
  }

  private mutating func batchNormalization(_ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    let channels = Int(p.integer(1))
    guard channels > 0, channels <= limits.maximumElementCount else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has \(channels) channels")
    }
    let epsilon = p.float(10) == 0 ? 1e-5 : p.float(10)
    let attributes: [ONNXAttribute] = [.init(name: "epsilon", value: .float(epsilon))]
    var inputs = [c.inputs[0]]
    let computesStatistics = p.integer(5) != 0
    guard !computesStatistics || p.integer(6) != 0 else {
      throw ModelFormatsError(
        .unsupported,
        "Core ML layer '\(c.name)': batch normalization with statistics of the whole batch is not run"
      )
    }
    let fields = computesStatistics ? [15, 16] : [15, 16, 17, 18]
    for (index, field) in fields.enumerated() {
      let what = ["gamma", "beta", "mean", "variance"][index]
      guard let message = try p.message(field) else {
        throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has no \(what)")
      }
      let values = try CoreMLWeights.values(
        message, count: channels, what: "layer '\(c.name)' \(what)")
      inputs.append(try constant(c.name + "__" + what, values, shape: [channels]))
    }
    let op = computesStatistics ? "InstanceNormalization" : "BatchNormalization"
    nodes.append(node(op, c.name, inputs, c.output, attributes))
  }

  /// `x / sqrt(sum(x^2) + epsilon)`, the sum over channels, height and width together.
  private mutating func l2Normalization(_ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    let epsilon = p.float(1) == 0 ? 1e-6 : p.float(1)
    let x = c.inputs[0]
    let squares = try scaled(x, by: x, c)
    let axes = try integerConstant(c.name + "__axes", [-3, -2, -1])
    let sum = c.output + "__sum"
    nodes.append(
      node(
        "ReduceSum", c.name + "__sum", [squares, axes], sum,
        [.init(name: "keepdims", value: .int(1))]))
    let e = try constant(c.name + "__epsilon", [epsilon], shape: [])
    nodes.append(node("Add", c.name + "__plus_epsilon", [sum, e], c.output + "__plus_epsilon"))
    nodes.append(
      node("Sqrt", c.name + "__sqrt", [c.output + "__plus_epsilon"], c.output + "__norm"))
    nodes.append(node("Div", c.name, [x, c.output + "__norm"], c.output))
  }

  private mutating func localResponseNormalization(_ p: CoreMLMessage, _ c: Context) {
    let k = p.float(4) == 0 ? 1 : p.float(4)
    add(
      "LRN", c,
      [
        .init(name: "alpha", value: .float(p.float(1))),
        .init(name: "beta", value: .float(p.float(2))),
        .init(name: "bias", value: .float(k)),
        .init(name: "size", value: .int(p.integer(3))),
      ])
  }

  /// `f(scale * x + shift)` for Core ML's unary functions; `epsilon` (1e-6 when unset) guards
  /// RSQRT, INVERSE and LOG.
  private mutating func unary(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let alpha = p.float(2)
    let epsilon = p.float(3) == 0 ? 1e-6 : p.float(3)
    let shift = p.float(4)
    let factor = p.float(5) == 0 ? 1 : p.float(5)
    var x = c.inputs[0]
    if factor != 1 {
      let f = try constant(c.name + "__scale", [factor], shape: [])
      x = try scaled(x, by: f, c)
    }
    if shift != 0 { x = try shifted(x, by: shift, suffix: "shift", c) }
    switch p.integer(1) {
    case 0: nodes.append(node("Sqrt", c.name, [x], c.output))
    case 1:
      let guarded = try shifted(x, by: epsilon, suffix: "eps", c)
      nodes.append(node("Sqrt", c.name + "__sqrt", [guarded], c.output + "__sqrt"))
      nodes.append(node("Reciprocal", c.name, [c.output + "__sqrt"], c.output))
    case 2:
      let guarded = try shifted(x, by: epsilon, suffix: "eps", c)
      nodes.append(node("Reciprocal", c.name, [guarded], c.output))
    case 3:
      let exponent = try constant(c.name + "__alpha", [alpha], shape: [])
      nodes.append(node("Pow", c.name, [x, exponent], c.output))
    case 4: nodes.append(node("Exp", c.name, [x], c.output))
    case 5:
      // Core ML adds epsilon here too (coremltools writes 1e-45 to leave it out).
      let guarded = try shifted(x, by: epsilon, suffix: "eps", c)
      nodes.append(node("Log", c.name, [guarded], c.output))
    case 6: nodes.append(node("Abs", c.name, [x], c.output))
    case 7:
      let floor = try constant(c.name + "__alpha", [alpha], shape: [])
      nodes.append(node("Max", c.name, [x, floor], c.output))
    case let other:
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': unary function \(other) is not known")
    }
  }

  /// `x + amount` as a new blob; returns its name.
  mutating func shifted(_ x: String, by amount: Float, suffix: String, _ c: Context)
    throws(ModelFormatsError) -> String
  {
    let value = try constant(c.name + "__" + suffix, [amount], shape: [])
    let output = c.output + "__plus_" + suffix
    nodes.append(node("Add", c.name + "__plus_" + suffix, [x, value], output))
    return output
  }

  /// `add` and `multiply`: the inputs combined; one input is combined with `alpha`.
  private mutating func elementwise(_ op: String, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    var operands = c.inputs
    if operands.count == 1 {
      operands.append(try constant(c.name + "__alpha", [p.float(1)], shape: []))
    }
    var current = operands[0]
    for (index, operand) in operands.dropFirst().enumerated() {
      let last = index == operands.count - 2
      let output = last ? c.output : c.output + "__partial\(index)"
      nodes.append(node(op, last ? c.name : c.name + "__\(index)", [current, operand], output))
      current = output
    }
  }

  /// `scale * x`, plus `bias` when the layer has one.
  private mutating func scale(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let factor = try broadcastConstant(p.integers(1), p.message(2), c, "scale")
    guard p.integer(3) != 0 else {
      nodes.append(node("Mul", c.name, [c.inputs[0], factor], c.output))
      return
    }
    let product = try scaled(c.inputs[0], by: factor, c)
    let offset = try broadcastConstant(p.integers(4), p.message(5), c, "bias")
    nodes.append(node("Add", c.name, [product, offset], c.output))
  }

  private mutating func bias(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let offset = try broadcastConstant(p.integers(1), p.message(2), c, "bias")
    nodes.append(node("Add", c.name, [c.inputs[0], offset], c.output))
  }

  /// Scale and bias values of shape `[1]`, `[C]`, `[1, H, W]` or `[C, H, W]`, as a constant that
  /// broadcasts over `[N, C, H, W]`.
  private mutating func broadcastConstant(
    _ shape: [Int64], _ message: CoreMLMessage?, _ c: Context, _ what: String
  ) throws(ModelFormatsError) -> String {
    guard let message, shape.count == 1 || shape.count == 3,
      shape.allSatisfy({ $0 > 0 && $0 <= Int64(limits.maximumElementCount) })
    else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' has a \(what) of shape \(shape)")
    }
    let dimensions = shape.map { Int($0) }
    let count = try elementCount(dimensions, c)
    let values = try CoreMLWeights.values(
      message, count: count, channels: dimensions[0], what: "layer '\(c.name)' \(what)")
    let full = dimensions.count == 3 ? [1] + dimensions : (count == 1 ? [] : [1, count, 1, 1])
    return try constant(c.name + "__" + what, values, shape: full)
  }

  /// `batchedMatmul`: the input times a weight matrix (plus a bias), or the first input times
  /// the second, either transposed on its last two axes; batch axes broadcast as NumPy's do.
  ///
  /// Quantizing the input to 8 bits while running (`int8DynamicQuantize`) is not run.
  private mutating func batchedMatmul(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    guard p.integer(10) == 0 else {
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': int8 dynamic quantization is not run")
    }
    if c.inputs.count == 2 {
      var operands = c.inputs
      for (index, field) in [1, 2].enumerated() where p.integer(field) != 0 {
        operands[index] = step(
          "Einsum", [operands[index]], "transposed\(index)", c,
          [.init(name: "equation", value: .string("...ij->...ji"))])
      }
      nodes.append(node("MatMul", c.name, operands, c.output))
      return
    }
    guard c.inputs.count == 1 else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' multiplies \(c.inputs.count) inputs")
    }
    let rows = Int(clamping: p.integer(5))
    let columns = Int(clamping: p.integer(6))
    let count = try elementCount([rows, columns], c)
    guard let weightMessage = try p.message(8) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has no weights")
    }
    // Stored one output column after another: [columns, rows]; MatMul takes [rows, columns].
    let stored = try CoreMLWeights.values(
      weightMessage, count: count, channels: columns, what: "layer '\(c.name)' weights")
    var matrix = [Float](repeating: 0, count: count)
    for column in 0..<columns {
      for row in 0..<rows { matrix[row * columns + column] = stored[column * rows + row] }
    }
    let weights = try constant(c.name + "__weights", matrix, shape: [rows, columns])
    guard p.integer(7) != 0, let biasMessage = try p.message(9) else {
      nodes.append(node("MatMul", c.name, [c.inputs[0], weights], c.output))
      return
    }
    let bias = try CoreMLWeights.values(
      biasMessage, count: columns, what: "layer '\(c.name)' bias")
    let product = step("MatMul", [c.inputs[0], weights], "product", c)
    let offset = try constant(c.name + "__bias", bias, shape: [columns])
    nodes.append(node("Add", c.name, [product, offset], c.output))
  }

  private mutating func clip(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let low = try constant(c.name + "__min", [p.float(1)], shape: [])
    let high = try constant(c.name + "__max", [p.float(2)], shape: [])
    nodes.append(node("Clip", c.name, [c.inputs[0], low, high], c.output))
  }

  /// The Gaussian error linear unit in Core ML's three forms: exact (with `erf`), and its tanh
  /// and sigmoid approximations.
  private mutating func gelu(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let x = c.inputs[0]
    switch p.integer(1) {
    case 0:
      // 0.5 * x * (1 + erf(x / sqrt(2)))
      let root = try constant(c.name + "__inverse_sqrt2", [Float(0.5).squareRoot()], shape: [])
      let erf = step("Erf", [step("Mul", [x, root], "scaled", c)], "erf", c)
      try halfTimesOnePlus(erf, times: x, c)
    case 1:
      // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
      let cube = step("Mul", [step("Mul", [x, x], "square", c), x], "cube", c)
      let k = try constant(c.name + "__k", [0.044715], shape: [])
      let inner = step("Add", [x, step("Mul", [cube, k], "cube_k", c)], "inner", c)
      let factor = try constant(
        c.name + "__factor", [Float((2 / Double.pi).squareRoot())], shape: [])
      let tanh = step("Tanh", [step("Mul", [inner, factor], "scaled", c)], "tanh", c)
      try halfTimesOnePlus(tanh, times: x, c)
    case 2:
      // x * sigmoid(1.702 * x)
      let factor = try constant(c.name + "__factor", [1.702], shape: [])
      let sigmoid = step("Sigmoid", [step("Mul", [x, factor], "scaled", c)], "sigmoid", c)
      nodes.append(node("Mul", c.name, [x, sigmoid], c.output))
    case let other:
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': GELU mode \(other) is not known")
    }
  }

  /// `0.5 * x * (1 + value)` into the layer's output.
  private mutating func halfTimesOnePlus(_ value: String, times x: String, _ c: Context)
    throws(ModelFormatsError)
  {
    let one = try constant(c.name + "__one", [1], shape: [])
    let half = try constant(c.name + "__half", [0.5], shape: [])
    let sum = step("Add", [value, one], "one_plus", c)
    let halfX = step("Mul", [x, half], "half_x", c)
    nodes.append(node("Mul", c.name, [halfX, sum], c.output))
  }
}
