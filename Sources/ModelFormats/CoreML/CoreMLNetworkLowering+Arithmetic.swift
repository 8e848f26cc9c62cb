import NeuralCore

/// The layers that compute values: normalizations, unary functions, element-wise arithmetic with
/// broadcasting, scale and bias, and reductions.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerArithmetic(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError) -> Bool
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
        throw NeuralCoreError(
          .malformedFile, "Core ML layer '\(c.name)' needs 2 inputs, it has \(c.inputs.count)")
      }
      add(op, c, [])
    case 1260, 1270, 1280: try reduction(kind, p, c)
    default: return false
    }
    return true
  }

  private mutating func batchNormalization(_ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError)
  {
    let channels = Int(p.integer(1))
    guard channels > 0, channels <= limits.maximumElementCount else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has \(channels) channels")
    }
    let epsilon = p.float(10) == 0 ? 1e-5 : p.float(10)
    let attributes: [ONNXAttribute] = [.init(name: "epsilon", value: .float(epsilon))]
    var inputs = [c.inputs[0]]
    let computesStatistics = p.integer(5) != 0
    guard !computesStatistics || p.integer(6) != 0 else {
      throw NeuralCoreError(
        .unsupported,
        "Core ML layer '\(c.name)': batch normalization with statistics of the whole batch is not run"
      )
    }
    let fields = computesStatistics ? [15, 16] : [15, 16, 17, 18]
    for (index, field) in fields.enumerated() {
      let what = ["gamma", "beta", "mean", "variance"][index]
      guard let message = try p.message(field) else {
        throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has no \(what)")
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
    throws(NeuralCoreError)
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
  private mutating func unary(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
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
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(c.name)': unary function \(other) is not known")
    }
  }

  /// `x + amount` as a new blob; returns its name.
  private mutating func shifted(_ x: String, by amount: Float, suffix: String, _ c: Context)
    throws(NeuralCoreError) -> String
  {
    let value = try constant(c.name + "__" + suffix, [amount], shape: [])
    let output = c.output + "__plus_" + suffix
    nodes.append(node("Add", c.name + "__plus_" + suffix, [x, value], output))
    return output
  }

  /// `add` and `multiply`: the inputs combined; one input is combined with `alpha`.
  private mutating func elementwise(_ op: String, _ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError)
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
  private mutating func scale(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let factor = try broadcastConstant(p.integers(1), p.message(2), c, "scale")
    guard p.integer(3) != 0 else {
      nodes.append(node("Mul", c.name, [c.inputs[0], factor], c.output))
      return
    }
    let product = try scaled(c.inputs[0], by: factor, c)
    let offset = try broadcastConstant(p.integers(4), p.message(5), c, "bias")
    nodes.append(node("Add", c.name, [product, offset], c.output))
  }

  private mutating func bias(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let offset = try broadcastConstant(p.integers(1), p.message(2), c, "bias")
    nodes.append(node("Add", c.name, [c.inputs[0], offset], c.output))
  }

  /// Scale and bias values of shape `[1]`, `[C]`, `[1, H, W]` or `[C, H, W]`, as a constant that
  /// broadcasts over `[N, C, H, W]`.
  private mutating func broadcastConstant(
    _ shape: [Int64], _ message: CoreMLMessage?, _ c: Context, _ what: String
  ) throws(NeuralCoreError) -> String {
    guard let message, shape.count == 1 || shape.count == 3,
      shape.allSatisfy({ $0 > 0 && $0 <= Int64(limits.maximumElementCount) })
    else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' has a \(what) of shape \(shape)")
    }
    let dimensions = shape.map { Int($0) }
    let count = try elementCount(dimensions, c)
    let values = try CoreMLWeights.values(
      message, count: count, channels: dimensions[0], what: "layer '\(c.name)' \(what)")
    let full = dimensions.count == 3 ? [1] + dimensions : (count == 1 ? [] : [1, count, 1, 1])
    return try constant(c.name + "__" + what, values, shape: full)
  }

  private mutating func clip(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let low = try constant(c.name + "__min", [p.float(1)], shape: [])
    let high = try constant(c.name + "__max", [p.float(2)], shape: [])
    nodes.append(node("Clip", c.name, [c.inputs[0], low, high], c.output))
  }

  /// `reduceMax`, `reduceSum` and `reduceMean` over the listed axes, or all of them.
  private mutating func reduction(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(NeuralCoreError)
  {
    let op = [1260: "ReduceMax", 1270: "ReduceSum", 1280: "ReduceMean"][kind] ?? "ReduceSum"
    var attributes: [ONNXAttribute] = [.init(name: "keepdims", value: .int(p.integer(2)))]
    var inputs = [c.inputs[0]]
    if p.integer(3) == 0 {
      let axes = try p.integers(1)
      guard !axes.isEmpty, axes.count <= limits.maximumRank else {
        throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' reduces axes \(axes)")
      }
      if op == "ReduceSum" {
        inputs.append(try integerConstant(c.name + "__axes", axes))
      } else {
        attributes.append(.init(name: "axes", value: .ints(axes)))
      }
    }
    nodes.append(node(op, c.name, inputs, c.output, attributes))
  }
}
