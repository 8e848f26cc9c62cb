import NeuralCore

/// Lowers the layers of a Core ML `NeuralNetwork` (or `NeuralNetworkClassifier`) to ONNX nodes,
/// so the ONNX importer's checks, fusions and kernels run Core ML models too.
///
/// Blobs keep their Core ML names; Core ML's channel-first blobs become NCHW tensors with batch
/// 1. Every layer kind it does not lower is an `unsupported` error that names the layer.
struct CoreMLNetworkLowering {
  let limits: ImportLimits
  var nodes: [ONNXNode] = []
  var initializers: [ONNXTensor] = []

  /// The `NeuralNetworkLayer` one-of field numbers this importer runs, named for messages.
  static let layerKinds: [Int: String] = [
    100: "convolution", 120: "pooling", 130: "activation", 140: "innerProduct", 160: "batchnorm",
    165: "mvn", 170: "l2normalize", 175: "softmax", 180: "lrn", 190: "crop", 200: "padding",
    210: "upsample", 211: "resizeBilinear", 220: "unary", 230: "add", 231: "multiply",
    240: "average", 245: "scale", 250: "bias", 260: "max", 261: "min", 280: "reduce",
    290: "loadConstant", 300: "reshape", 301: "flatten", 310: "permute", 320: "concat",
    330: "split", 345: "reorganizeData", 350: "slice", 600: "copy", 660: "clip", 790: "erf",
    795: "gelu", 870: "minBroadcastable", 875: "maxBroadcastable", 880: "addBroadcastable",
    885: "powBroadcastable", 890: "divideBroadcastable", 900: "multiplyBroadcastable",
    905: "subtractBroadcastable", 950: "softmaxND", 975: "splitND", 980: "concatND",
    985: "transpose", 995: "sliceStatic", 1020: "argMin", 1025: "argMax", 1045: "batchedMatmul",
    1070: "loadConstantND", 1120: "squeeze", 1125: "expandDims", 1130: "flattenTo2D",
    1140: "reshapeStatic", 1155: "constantPad", 1250: "reduceL1", 1255: "reduceL2",
    1260: "reduceMax", 1265: "reduceMin", 1270: "reduceSum", 1275: "reduceProd", 1280: "reduceMean",
    1285: "reduceLogSum", 1290: "reduceSumSquare", 1295: "reduceLogSumExp", 1460: "clampedReLU",
  ]
  /// The other kinds NeuralNetwork.proto lists, named in the message that refuses them: layers
  /// of sequence, text, video and detection models, control flow, random values, comparisons,
  /// element-wise functions and shapes computed while running, which image classifiers do not
  /// use (ImportingModels.md in the documentation says why for each).
  static let refusedKinds: [Int: String] = [
    150: "embedding", 212: "cropResize", 270: "dot", 340: "sequenceRepeat", 400: "simpleRecurrent",
    410: "gru", 420: "uniDirectionalLSTM", 430: "biDirectionalLSTM", 500: "custom", 605: "branch",
    615: "loop", 620: "loopBreak", 625: "loopContinue", 635: "rangeStatic", 640: "rangeDynamic",
    665: "ceil", 670: "floor", 680: "sign", 685: "round", 700: "exp2", 710: "sin", 715: "cos",
    720: "tan", 730: "asin", 735: "acos", 740: "atan", 750: "sinh", 755: "cosh", 760: "tanh",
    770: "asinh", 775: "acosh", 780: "atanh", 815: "equal", 820: "notEqual", 825: "lessThan",
    827: "lessEqual", 830: "greaterThan", 832: "greaterEqual", 840: "logicalOr", 845: "logicalXor",
    850: "logicalNot", 855: "logicalAnd", 865: "modBroadcastable", 895: "floorDivBroadcastable",
    920: "tile", 925: "stack", 930: "gather", 935: "scatter", 940: "gatherND", 945: "scatterND",
    952: "gatherAlongAxis", 954: "scatterAlongAxis", 960: "reverse", 965: "reverseSeq",
    1000: "sliceDynamic", 1005: "slidingWindows", 1015: "topK", 1040: "embeddingND",
    1065: "getShape", 1080: "fillLike", 1085: "fillStatic", 1090: "fillDynamic",
    1100: "broadcastToLike", 1105: "broadcastToStatic", 1110: "broadcastToDynamic",
    1135: "reshapeLike", 1145: "reshapeDynamic", 1150: "rankPreservingReshape",
    1170: "randomNormalLike", 1175: "randomNormalStatic", 1180: "randomNormalDynamic",
    1190: "randomUniformLike", 1195: "randomUniformStatic", 1200: "randomUniformDynamic",
    1210: "randomBernoulliLike", 1215: "randomBernoulliStatic", 1220: "randomBernoulliDynamic",
    1230: "categoricalDistribution", 1313: "whereNonZero", 1315: "matrixBandPart",
    1320: "lowerTriangular", 1325: "upperTriangular", 1330: "whereBroadcastable",
    1350: "layerNormalization", 1400: "NonMaximumSuppression", 1450: "oneHot", 1455: "cumSum",
    1461: "argSort", 1465: "pooling3d", 1466: "globalPooling3d", 1470: "sliceBySize",
    1471: "convolution3d",
  ]
  private static let layerKindNumbers = layerKinds.keys.sorted()
  private static let refusedKindNumbers = refusedKinds.keys.sorted()
  /// The layers that take no input.
  private static let constantKinds: Set<Int> = [290, 1070]
  /// The layers with more than one output.
  private static let splitKinds: Set<Int> = [330, 975]

  init(limits: ImportLimits) {
    self.limits = limits
  }

  /// Lowers one `NeuralNetworkLayer`.
  mutating func lower(_ layer: CoreMLMessage) throws(ModelFormatsError) {
    let name = layer.string(1)
    let inputs = layer.strings(2)
    let outputs = layer.strings(3)
    guard let kind = layer.oneOf(Self.layerKindNumbers), let params = try layer.message(kind)
    else {
      let refused = layer.oneOf(Self.refusedKindNumbers).flatMap { Self.refusedKinds[$0] }
      throw ModelFormatsError(
        .unsupported,
        "Core ML layer '\(name)' is "
          + (refused.map { "a \($0) layer, which this importer does not run" }
            ?? "of a kind this importer does not run"))
    }
    let takesInputs = !Self.constantKinds.contains(kind)
    let outputCounts = Self.splitKinds.contains(kind) ? 1...Int.max : 1...1
    guard inputs.isEmpty != takesInputs, outputCounts.contains(outputs.count) else {
      throw ModelFormatsError(
        .malformedFile,
        "Core ML layer '\(name)' has \(inputs.count) inputs and \(outputs.count) outputs")
    }
    let context = Context(name: name, inputs: inputs, outputs: outputs)
    if try lowerArithmetic(kind, params, context) { return }
    if try lowerReduction(kind, params, context) { return }
    if try lowerLayout(kind, params, context) { return }
    if try lowerSlicing(kind, params, context) { return }
    switch kind {
    case 100: try convolution(params, context)
    case 120: try pooling(params, context)
    case 130: try activation(params, context)
    case 140: try innerProduct(params, context)
    case 175: add("Softmax", context, [.init(name: "axis", value: .int(1))])
    // coremltools writes MIL's identity as a copy (DenseNet has four).
    case 600: add("Identity", context, [])
    case 950:
      add("Softmax", context, [.init(name: "axis", value: .int(params.integer(1)))])
    default:
      throw ModelFormatsError(
        .unsupported,
        "Core ML layer '\(name)' is a \(Self.layerKinds[kind] ?? "?") layer, which this importer "
          + "does not run")
    }
  }

  /// Makes the blob `name` a vector per image, as Core ML reports a classifier's scores
  /// (`[C]` of a `[C, 1, 1]` blob): its producer's output is renamed and flattened into it.
  mutating func flattenOutput(_ name: String) {
    let ranked = name + "__ranked"
    for index in nodes.indices {
      nodes[index].inputs = nodes[index].inputs.map { $0 == name ? ranked : $0 }
      nodes[index].outputs = nodes[index].outputs.map { $0 == name ? ranked : $0 }
    }
    nodes.append(
      node("Flatten", name + "__flatten", [ranked], name, [.init(name: "axis", value: .int(1))]))
  }

  /// The scale and per-channel bias Core ML applies to an image input, as nodes from
  /// `pixels` (raw 0-255 values in the model's colour order) to `output`.
  mutating func preprocess(
    pixels: String, output: String, scale: Float, biases: [Float]
  ) throws(ModelFormatsError) {
    let scaled = output + "__scaled"
    let scaleName = try constant(output + "__scale", [scale], shape: [])
    let biasName = try constant(output + "__bias", biases, shape: [1, biases.count, 1, 1])
    nodes.append(node("Mul", output + "__scale_node", [pixels, scaleName], scaled))
    nodes.append(node("Add", output + "__bias_node", [scaled, biasName], output))
  }

  // MARK: - Layers

  /// A layer's name and blobs.
  struct Context {
    var name: String
    var inputs: [String]
    /// At least one name (``lower(_:)`` checks).
    var outputs: [String]
    /// The first (for most layers the only) output.
    var output: String { outputs[0] }
  }

  private mutating func convolution(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let transposed = p.integer(60) != 0
    let outputChannels = Int(p.integer(1))
    let kernelChannels = Int(p.integer(2))
    let groups = max(1, Int(p.integer(10)))
    let kernel = try sizes(p.integers(20), default: 3, c)
    let strides = try sizes(p.integers(30), default: 1, c)
    let dilations = transposed ? [1, 1] : try sizes(p.integers(40), default: 1, c)
    // Convolution: [out, in / groups, kh, kw]; deconvolution: [in, out / groups, kh, kw].
    let shape =
      transposed
      ? [kernelChannels, outputChannels / groups, kernel[0], kernel[1]]
      : [outputChannels, kernelChannels, kernel[0], kernel[1]]
    guard !transposed || outputChannels % groups == 0 else {
      throw ModelFormatsError(
        .malformedFile,
        "Core ML layer '\(c.name)' has \(outputChannels) output channels in \(groups) groups")
    }
    let count = try elementCount(shape, c)
    guard let weightMessage = try p.message(90) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has no weights")
    }
    let weights = try CoreMLWeights.values(
      weightMessage, count: count, channels: shape[0], what: "layer '\(c.name)' weights")
    var inputs = [c.inputs[0], try constant(c.name + "__weights", weights, shape: shape)]
    if p.integer(70) != 0, let biasMessage = try p.message(91) {
      let bias = try CoreMLWeights.values(
        biasMessage, count: outputChannels, what: "layer '\(c.name)' bias")
      inputs.append(try constant(c.name + "__bias", bias, shape: [outputChannels]))
    }
    var attributes: [ONNXAttribute] = [
      .init(name: "kernel_shape", value: .ints(kernel.map(Int64.init))),
      .init(name: "strides", value: .ints(strides.map(Int64.init))),
      .init(name: "dilations", value: .ints(dilations.map(Int64.init))),
      .init(name: "group", value: .int(Int64(groups))),
    ]
    attributes += try padding(valid: p.message(50), same: p.message(51), c)
    let outputShape = try p.integers(100)
    if transposed && !outputShape.isEmpty {
      // Converters write the padding amounts and the size they give: the amounts place the
      // output, the size ends it.
      let size = try sizes(outputShape, default: 1, c)
      attributes.append(.init(name: "output_shape", value: .ints(size.map(Int64.init))))
    }
    nodes.append(node(transposed ? "ConvTranspose" : "Conv", c.name, inputs, c.output, attributes))
  }

  private mutating func pooling(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let type = p.integer(1)
    guard type == 0 || type == 1 else {
      throw ModelFormatsError(.unsupported, "Core ML layer '\(c.name)': L2 pooling is not run yet")
    }
    if p.integer(60) != 0 {
      add(type == 0 ? "GlobalMaxPool" : "GlobalAveragePool", c, [])
      return
    }
    let kernel = try sizes(p.integers(10), default: 3, c)
    let strides = try sizes(p.integers(20), default: 1, c)
    var attributes: [ONNXAttribute] = [
      .init(name: "kernel_shape", value: .ints(kernel.map(Int64.init))),
      .init(name: "strides", value: .ints(strides.map(Int64.init))),
    ]
    if let complete = try p.message(32) {
      // includeLastPixel: symmetric padding and a last window that may run past the edge.
      let amounts = try sizes(complete.integers(10), default: 0, c)
      attributes.append(
        .init(
          name: "pads",
          value: .ints([amounts[0], amounts[1], amounts[0], amounts[1]].map(Int64.init))))
      attributes.append(.init(name: "ceil_mode", value: .int(1)))
    } else {
      attributes += try padding(valid: p.message(30), same: p.message(31), c)
    }
    if type == 1 {
      attributes.append(.init(name: "count_include_pad", value: .int(p.integer(50) != 0 ? 0 : 1)))
    }
    add(type == 0 ? "MaxPool" : "AveragePool", c, attributes)
  }

  private mutating func activation(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let kinds = [5, 10, 15, 20, 25, 30, 31, 40, 41, 50, 60, 70, 71]
    guard let kind = p.oneOf(kinds), let params = try p.message(kind) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' names no activation")
    }
    let alpha = params.float(1)
    let beta = params.float(2)
    switch kind {
    case 10: add("Relu", c, [])
    case 15: add("LeakyRelu", c, [.init(name: "alpha", value: .float(alpha))])
    case 20: add("ThresholdedRelu", c, [.init(name: "alpha", value: .float(alpha))])
    case 30: add("Tanh", c, [])
    case 40: add("Sigmoid", c, [])
    case 41:
      add(
        "HardSigmoid", c,
        [.init(name: "alpha", value: .float(alpha)), .init(name: "beta", value: .float(beta))])
    case 50: add("Elu", c, [.init(name: "alpha", value: .float(alpha))])
    case 60: add("Softsign", c, [])
    case 70: add("Softplus", c, [])
    case 25:
      let slope = try perChannel(params.message(1), c, "PReLU alpha")
      nodes.append(node("PRelu", c.name, [c.inputs[0], slope], c.output))
    case 31:
      // alpha * tanh(beta * x)
      let b = try constant(c.name + "__beta", [beta], shape: [])
      let inner = try scaled(c.inputs[0], by: b, c)
      let tanh = c.output + "__tanh"
      nodes.append(node("Tanh", c.name + "__tanh", [inner], tanh))
      let a = try constant(c.name + "__alpha", [alpha], shape: [])
      nodes.append(node("Mul", c.name, [tanh, a], c.output))
    case 71:
      // alpha_c * log(1 + exp(beta_c * x))
      let betas = try perChannel(params.message(2), c, "parametric softplus beta")
      let inner = try scaled(c.inputs[0], by: betas, c)
      let softplus = c.output + "__softplus"
      nodes.append(node("Softplus", c.name + "__softplus", [inner], softplus))
      let alphas = try perChannel(params.message(1), c, "parametric softplus alpha")
      nodes.append(node("Mul", c.name, [softplus, alphas], c.output))
    case 5:
      // alpha * x + beta
      let scaled = c.output + "__scaled"
      let a = try constant(c.name + "__alpha", [alpha], shape: [])
      let b = try constant(c.name + "__beta", [beta], shape: [])
      nodes.append(node("Mul", c.name + "__mul", [c.inputs[0], a], scaled))
      nodes.append(node("Add", c.name, [scaled, b], c.output))
    default:
      throw ModelFormatsError(
        .unsupported, "Core ML layer '\(c.name)': this activation kind is not run yet")
    }
  }

  private mutating func innerProduct(_ p: CoreMLMessage, _ c: Context) throws(ModelFormatsError) {
    let inputChannels = Int(p.integer(1))
    let outputChannels = Int(p.integer(2))
    let count = try elementCount([outputChannels, inputChannels], c)
    guard let weightMessage = try p.message(20) else {
      throw ModelFormatsError(.malformedFile, "Core ML layer '\(c.name)' has no weights")
    }
    let weights = try CoreMLWeights.values(
      weightMessage, count: count, channels: outputChannels, what: "layer '\(c.name)' weights")
    let flat = step("Flatten", [c.inputs[0]], "flat", c, [.init(name: "axis", value: .int(1))])
    var inputs = [
      flat, try constant(c.name + "__weights", weights, shape: [outputChannels, inputChannels]),
    ]
    if p.integer(10) != 0, let biasMessage = try p.message(21) {
      let bias = try CoreMLWeights.values(
        biasMessage, count: outputChannels, what: "layer '\(c.name)' bias")
      inputs.append(try constant(c.name + "__bias", bias, shape: [outputChannels]))
    }
    let product = step("Gemm", inputs, "product", c, [.init(name: "transB", value: .int(1))])
    let shape = try rankKeepingShape(of: c.inputs[0], channels: Int64(outputChannels), c)
    nodes.append(node("Reshape", c.name, [product, shape], c.output))
  }

  /// The shape Core ML's rank-keeping layers (`innerProduct`, `flatten`) give their output:
  /// the input's batch, `channels` (-1 for what the element count leaves), and 1 for every
  /// later axis: `[N, C']` of a rank-2 input, `[N, C', 1, 1]` of an image.
  ///
  /// The ones are the trailing dimensions of a slice of the input to one element along its
  /// last two axes, so the rank need not be known here. Shapes are known when the graph is
  /// planned, and these nodes fold away there. Returns the shape's name.
  mutating func rankKeepingShape(
    of input: String, channels: Int64, _ c: Context
  ) throws(ModelFormatsError) -> String {
    let zeros = try integerConstant(c.name + "__zeros", [0, 0])
    let ones = try integerConstant(c.name + "__ones", [1, 1])
    let lastTwo = try integerConstant(c.name + "__last_two_axes", [-2, -1])
    let corner = step("Slice", [input, zeros, ones, lastTwo], "corner", c)
    let cornerShape = step("Shape", [corner], "corner_shape", c)
    let first = try integerConstant(c.name + "__first", [0])
    let second = try integerConstant(c.name + "__second", [1])
    let third = try integerConstant(c.name + "__third", [2])
    let end = try integerConstant(c.name + "__end", [Int64.max])
    let trailing = step("Slice", [cornerShape, third, end], "trailing_ones", c)
    let inputShape = step("Shape", [input], "input_shape", c)
    let batch = step("Slice", [inputShape, first, second], "batch", c)
    let channelCount = try integerConstant(c.name + "__channels", [channels])
    return step(
      "Concat", [batch, channelCount, trailing], "shape", c, [.init(name: "axis", value: .int(0))])
  }

  // MARK: - Helpers

  /// An int64 constant of one dimension; returns its name.
  mutating func integerConstant(_ name: String, _ values: [Int64]) throws(ModelFormatsError)
    -> String
  {
    initializers.append(
      ONNXTensor(name: name, dataType: .int64, value: .integer(values, shape: [values.count])))
    return name
  }

  /// `op` of `inputs` as a new blob, named after the layer's output and `suffix`; returns its
  /// name.
  mutating func step(
    _ op: String, _ inputs: [String], _ suffix: String, _ c: Context,
    _ attributes: [ONNXAttribute] = []
  ) -> String {
    let output = c.output + "__" + suffix
    nodes.append(node(op, c.name + "__" + suffix, inputs, output, attributes))
    return output
  }

  /// `input * factor` as a new blob; returns its name.
  mutating func scaled(_ input: String, by factor: String, _ c: Context)
    throws(ModelFormatsError) -> String
  {
    let output = c.output + "__times_" + factor
    nodes.append(node("Mul", c.name + "__times_" + factor, [input, factor], output))
    return output
  }

  /// A parameter with one value for all channels or one per channel, as a constant that
  /// broadcasts over `[N, C, H, W]`; returns its name.
  mutating func perChannel(_ message: CoreMLMessage?, _ c: Context, _ what: String)
    throws(ModelFormatsError) -> String
  {
    guard let message, let count = try CoreMLWeights.storedCount(message), count > 0 else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)': the \(what) values are missing or quantized")
    }
    let values = try CoreMLWeights.values(message, count: count, what: "layer '\(c.name)' \(what)")
    let name = c.name + "__" + what.split(separator: " ").joined(separator: "_")
    return try constant(name, values, shape: count == 1 ? [] : [1, count, 1, 1])
  }

  /// `valid` (explicit border amounts, height first) or `same` padding as ONNX attributes.
  func padding(valid: CoreMLMessage?, same: CoreMLMessage?, _ c: Context)
    throws(ModelFormatsError) -> [ONNXAttribute]
  {
    if let same {
      let mode = same.integer(1) == 1 ? "SAME_LOWER" : "SAME_UPPER"
      return [.init(name: "auto_pad", value: .string(mode))]
    }
    // Valid padding: its amounts, or none when it lists no axes.
    guard let amounts = try valid?.message(1), amounts.has(10) else { return [] }
    let values = try borderAmounts(amounts, c)
    return [.init(name: "pads", value: .ints(values))]
  }

  /// A `BorderAmounts` message as `[top, left, bottom, right]`.
  func borderAmounts(_ message: CoreMLMessage?, _ c: Context)
    throws(ModelFormatsError) -> [Int64]
  {
    let edges = try message?.messages(10) ?? []
    guard edges.count == 2 else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' gives border amounts for \(edges.count) axes")
    }
    let values = [
      edges[0].integer(1), edges[1].integer(1), edges[0].integer(2), edges[1].integer(2),
    ]
    guard values.allSatisfy({ (0...65_536).contains($0) }) else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' has border amounts \(values)")
    }
    return values
  }

  /// Two spatial sizes (height, width), or the default for both when the list is empty.
  func sizes(_ values: [Int64], default value: Int, _ c: Context)
    throws(ModelFormatsError) -> [Int]
  {
    if values.isEmpty { return [value, value] }
    guard values.count == 2, values.allSatisfy({ (0...65_536).contains($0) }) else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' has spatial sizes \(values)")
    }
    return values.map { Int($0) }
  }

  /// The product of `dimensions` (each at least 1), checked against the element limit.
  func elementCount(_ dimensions: [Int], _ c: Context) throws(ModelFormatsError) -> Int {
    guard dimensions.allSatisfy({ $0 > 0 }) else {
      throw ModelFormatsError(
        .malformedFile, "Core ML layer '\(c.name)' has weight dimensions \(dimensions)")
    }
    return try limits.checkedElementCount(of: dimensions, name: "\(c.name) weights")
  }

  mutating func constant(_ name: String, _ values: [Float], shape: [Int])
    throws(ModelFormatsError) -> String
  {
    initializers.append(
      ONNXTensor(
        name: name, dataType: .float, value: .float(try Tensor(fileShape: shape, scalars: values))))
    return name
  }

  mutating func add(_ op: String, _ c: Context, _ attributes: [ONNXAttribute]) {
    nodes.append(node(op, c.name, c.inputs, c.output, attributes))
  }

  func node(
    _ op: String, _ name: String, _ inputs: [String], _ output: String,
    _ attributes: [ONNXAttribute] = []
  ) -> ONNXNode {
    ONNXNode(
      name: name, opType: op, domain: "", inputs: inputs, outputs: [output],
      attributes: attributes)
  }
}
