import NeuralCore

/// The layers that reduce axes: the rank-4 `reduce`, the rank-N `reduce*` layers, `argMax`,
/// `argMin`, and mean-variance normalization.
extension CoreMLNetworkLowering {
  /// Lowers `kind` when it is one of these layers; `false` when it is not.
  mutating func lowerReduction(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError) -> Bool
  {
    switch kind {
    case 165: try meanVarianceNormalization(p, c)
    case 280: try reduce(p, c)
    case 1020, 1025:
      try argument(
        c.inputs[0], largest: kind == 1025, axis: p.integer(1), keepDimensions: p.integer(2) == 0,
        c)
    case 1250, 1255, 1260, 1265, 1270, 1275, 1280, 1285, 1290, 1295: try reduction(kind, p, c)
    default: return false
    }
    return true
  }

  /// The rank-4 `reduce`: one of ten functions over channels, height and width together, height
  /// and width, or one of them; reduced axes stay, with length 1.
  private mutating func reduce(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let axisLists: [[Int64]] = [[-3, -2, -1], [-2, -1], [-3], [-2], [-1]]
    let axisCode = Int(clamping: p.integer(3))
    guard axisLists.indices.contains(axisCode) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' reduces axis \(axisCode)")
    }
    let axes = axisLists[axisCode]
    let x = c.inputs[0]
    let mode = p.integer(1)
    let functions: [Int64: String] = [
      0: "ReduceSum", 1: "ReduceMean", 2: "ReduceProd", 4: "ReduceSumSquare", 5: "ReduceL1",
      6: "ReduceL2", 7: "ReduceMax", 8: "ReduceMin",
    ]
    if let op = functions[mode] {
      try reduced(op, x, axes, keepDimensions: true, c)
      return
    }
    switch mode {
    case 3:
      // LOGSUM is the sum of ln(x + epsilon), not the log of the sum (which `reduceLogSum` is).
      let epsilon = p.float(2) == 0 ? 1e-6 : p.float(2)
      let logarithm = step("Log", [try shifted(x, by: epsilon, suffix: "eps", c)], "log", c)
      try reduced("ReduceSum", logarithm, axes, keepDimensions: true, c)
    case 9:
      guard axes.count == 1 else {
        throw ModelFormatsError(
          .malformedFile, "Core ML layer '\(c.name)' takes ARGMAX over more than one axis")
      }
      try argument(x, largest: true, axis: axes[0], keepDimensions: true, c)
    case let other:
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': reduce mode \(other) is not known")
    }
  }

  /// The rank-N `reduce*` layers over the listed axes, or all of them.
  private mutating func reduction(_ kind: Int, _ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    let operators = [
      1250: "ReduceL1", 1255: "ReduceL2", 1260: "ReduceMax", 1265: "ReduceMin",
      1270: "ReduceSum", 1275: "ReduceProd", 1280: "ReduceMean", 1285: "ReduceLogSum",
      1290: "ReduceSumSquare", 1295: "ReduceLogSumExp",
    ]
    let op = operators[kind] ?? "ReduceSum"
    var axes: [Int64]?
    if p.integer(3) == 0 {
      let listed = try p.integers(1)
      guard !listed.isEmpty, listed.count <= limits.maximumRank else {
        throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' reduces axes \(listed)")
      }
      axes = listed
    }
    try reduced(op, c.inputs[0], axes, keepDimensions: p.integer(2) != 0, c)
  }

  /// The index of the first largest (or smallest) value along `axis`, as a float, into the
  /// layer's output.
  ///
  /// `Hardmax` marks the first largest value with 1; the running sum of the marks after each
  /// position (reversed, exclusive) is 1 before the mark and 0 from it on, so its sum is the
  /// index. Core ML keeps a rank-1 input's axis when `removeDim` is set; here it goes.
  private mutating func argument(
    _ x: String, largest: Bool, axis: Int64, keepDimensions: Bool, _ c: Context
  ) throws(ModelFormatsError) {
    let scores = largest ? x : step("Neg", [x], "negated", c)
    let mark = step("Hardmax", [scores], "mark", c, [.init(name: "axis", value: .int(axis))])
    let axisName = try integerConstant(c.name + "__axis", [axis])
    let before = step(
      "CumSum", [mark, axisName], "before", c,
      [.init(name: "exclusive", value: .int(1)), .init(name: "reverse", value: .int(1))])
    try reduced("ReduceSum", before, [axis], keepDimensions: keepDimensions, c)
  }

  /// `(x - mean) / sqrt(variance + epsilon)`, or `x - mean`, over height and width or over
  /// channels, height and width together.
  ///
  /// NeuralNetwork.proto gives no formula; coremltools writes layer normalization as this layer
  /// with the normalization's epsilon, so epsilon goes under the root.
  private mutating func meanVarianceNormalization(_ p: CoreMLMessage, _ c: Context)
    throws(ModelFormatsError)
  {
    let axes: [Int64] = p.integer(1) != 0 ? [-3, -2, -1] : [-2, -1]
    let x = c.inputs[0]
    let keep: [ONNXAttribute] = [
      .init(name: "axes", value: .ints(axes)), .init(name: "keepdims", value: .int(1)),
    ]
    let mean = step("ReduceMean", [x], "mean", c, keep)
    guard p.integer(2) != 0 else {
      nodes.append(node("Sub", c.name, [x, mean], c.output))
      return
    }
    let centred = step("Sub", [x, mean], "centred", c)
    let squares = step("Mul", [centred, centred], "squares", c)
    let variance = step("ReduceMean", [squares], "variance", c, keep)
    let epsilon = p.float(3) == 0 ? 1e-6 : p.float(3)
    let deviation = step("Sqrt", [try shifted(variance, by: epsilon, suffix: "eps", c)], "sqrt", c)
    nodes.append(node("Div", c.name, [centred, deviation], c.output))
  }

  /// A reduction of `input` over `axes` (all of them when `nil`) into the layer's output.
  ///
  /// At opset 13 `ReduceSum` takes its axes as an input, the other reductions as an attribute.
  private mutating func reduced(
    _ op: String, _ input: String, _ axes: [Int64]?, keepDimensions: Bool, _ c: Context
  ) throws(ModelFormatsError) {
    var inputs = [input]
    var attributes: [ONNXAttribute] = [
      .init(name: "keepdims", value: .int(keepDimensions ? 1 : 0))
    ]
    if let axes {
      if op == "ReduceSum" {
        inputs.append(try integerConstant(c.name + "__axes", axes))
      } else {
        attributes.append(.init(name: "axes", value: .ints(axes)))
      }
    }
    nodes.append(node(op, c.name, inputs, c.output, attributes))
  }
}
