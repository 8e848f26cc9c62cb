/// Lowers the layers of a Core ML `NeuralNetwork` (or `NeuralNetworkClassifier`) to ONNX nodes,
/// so the ONNX importer's checks, fusions and kernels run Core ML models too.
///
/// Blobs keep their Core ML names; Core ML's channel-first blobs become NCHW tensors with batch
/// 1. Every layer kind it does not lower is an `unsupported` error that names the layer.
struct CoreMLNetworkLowering {
  let limits: ImportLimits
  private(set) var nodes: [ONNXNode] = []
  private(set) var initializers: [ONNXTensor] = []

  /// The `NeuralNetworkLayer` one-of field numbers this importer knows, named for messages.
  private static let layerKinds: [Int: String] = [
    100: "convolution", 120: "pooling", 130: "activation", 140: "innerProduct",
    160: "batchnorm", 170: "l2normalize", 175: "softmax", 190: "crop", 200: "padding",
    210: "upsample", 220: "unary", 230: "add", 231: "multiply", 240: "average", 245: "scale",
    250: "bias", 260: "max", 261: "min", 300: "reshape", 301: "flatten", 310: "permute",
    320: "concat", 660: "clip", 950: "softmaxND", 1140: "reshapeStatic",
  ]
  private static let layerKindNumbers = layerKinds.keys.sorted()

  init(limits: ImportLimits) {
    self.limits = limits
  }

  /// Lowers one `NeuralNetworkLayer`.
  mutating func lower(_ layer: CoreMLMessage) throws(NeuralCoreError) {
    let name = layer.string(1)
    let inputs = layer.strings(2)
    let outputs = layer.strings(3)
    guard !inputs.isEmpty, outputs.count == 1 else {
      throw NeuralCoreError(
        .malformedFile,
        "Core ML layer '\(name)' has \(inputs.count) inputs and \(outputs.count) outputs")
    }
    guard let kind = layer.oneOf(Self.layerKindNumbers), let params = try layer.message(kind)
    else {
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(name)' is of a kind this importer does not run")
    }
    let context = Context(name: name, inputs: inputs, output: outputs[0])
    switch kind {
    case 100: try convolution(params, context)
    case 120: try pooling(params, context)
    case 130: try activation(params, context)
    case 140: try innerProduct(params, context)
    case 175: add("Softmax", context, [.init(name: "axis", value: .int(1))])
    case 230: try elementwise("Add", params, context)
    case 231: try elementwise("Mul", params, context)
    case 301: try flatten(params, context)
    case 320: try concat(params, context)
    case 660: try clip(params, context)
    case 950:
      add("Softmax", context, [.init(name: "axis", value: .int(params.integer(1)))])
    case 1140: try reshapeStatic(params, context)
    default:
      throw NeuralCoreError(
        .unsupported,
        "Core ML layer '\(name)' is a \(Self.layerKinds[kind] ?? "?") layer, which this importer does not "
          + "run yet")
    }
  }

  /// The scale and per-channel bias Core ML applies to an image input, as nodes from
  /// `pixels` (raw 0-255 values in the model's colour order) to `output`.
  mutating func preprocess(
    pixels: String, output: String, scale: Float, biases: [Float]
  ) throws(NeuralCoreError) {
    let scaled = output + "__scaled"
    let scaleName = try constant(output + "__scale", [scale], shape: [])
    let biasName = try constant(output + "__bias", biases, shape: [1, biases.count, 1, 1])
    nodes.append(node("Mul", output + "__scale_node", [pixels, scaleName], scaled))
    nodes.append(node("Add", output + "__bias_node", [scaled, biasName], output))
  }

  // MARK: - Layers

  private struct Context {
    var name: String
    var inputs: [String]
    var output: String
  }

  private mutating func convolution(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    guard p.integer(60) == 0 else {
      throw NeuralCoreError(.unsupported, "Core ML layer '\(c.name)': deconvolution is not run yet")
    }
    let outputChannels = Int(p.integer(1))
    let kernelChannels = Int(p.integer(2))
    let groups = max(1, Int(p.integer(10)))
    let kernel = try sizes(p.integers(20), default: 3, c)
    let strides = try sizes(p.integers(30), default: 1, c)
    let dilations = try sizes(p.integers(40), default: 1, c)
    let count = try elementCount([outputChannels, kernelChannels, kernel[0], kernel[1]], c)
    guard let weightMessage = try p.message(90) else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has no weights")
    }
    let weights = try CoreMLWeights.values(
      weightMessage, count: count, channels: outputChannels, what: "layer '\(c.name)' weights")
    var inputs = [
      c.inputs[0],
      try constant(
        c.name + "__weights", weights,
        shape: [outputChannels, kernelChannels, kernel[0], kernel[1]]),
    ]
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
    nodes.append(node("Conv", c.name, inputs, c.output, attributes))
  }

  private mutating func pooling(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let type = p.integer(1)
    guard type == 0 || type == 1 else {
      throw NeuralCoreError(.unsupported, "Core ML layer '\(c.name)': L2 pooling is not run yet")
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

  private mutating func activation(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let kinds = [5, 10, 15, 20, 25, 30, 31, 40, 41, 50, 60, 70, 71]
    guard let kind = p.oneOf(kinds), let params = try p.message(kind) else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' names no activation")
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
    case 5:
      // alpha * x + beta
      let scaled = c.output + "__scaled"
      let a = try constant(c.name + "__alpha", [alpha], shape: [])
      let b = try constant(c.name + "__beta", [beta], shape: [])
      nodes.append(node("Mul", c.name + "__mul", [c.inputs[0], a], scaled))
      nodes.append(node("Add", c.name, [scaled, b], c.output))
    default:
      throw NeuralCoreError(
        .unsupported, "Core ML layer '\(c.name)': this activation kind is not run yet")
    }
  }

  private mutating func innerProduct(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let inputChannels = Int(p.integer(1))
    let outputChannels = Int(p.integer(2))
    let count = try elementCount([outputChannels, inputChannels], c)
    guard let weightMessage = try p.message(20) else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has no weights")
    }
    let weights = try CoreMLWeights.values(
      weightMessage, count: count, channels: outputChannels, what: "layer '\(c.name)' weights")
    let flat = c.output + "__flat"
    nodes.append(
      node(
        "Flatten", c.name + "__flatten", [c.inputs[0]], flat, [.init(name: "axis", value: .int(1))])
    )
    var inputs = [
      flat, try constant(c.name + "__weights", weights, shape: [outputChannels, inputChannels]),
    ]
    if p.integer(10) != 0, let biasMessage = try p.message(21) {
      let bias = try CoreMLWeights.values(
        biasMessage, count: outputChannels, what: "layer '\(c.name)' bias")
      inputs.append(try constant(c.name + "__bias", bias, shape: [outputChannels]))
    }
    nodes.append(node("Gemm", c.name, inputs, c.output, [.init(name: "transB", value: .int(1))]))
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

  private mutating func flatten(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    var source = c.inputs[0]
    if p.integer(1) == 1 {
      // Channel-last order: height, width, then channels.
      source = c.output + "__channel_last"
      nodes.append(
        node(
          "Transpose", c.name + "__transpose", [c.inputs[0]], source,
          [.init(name: "perm", value: .ints([0, 2, 3, 1]))]))
    }
    nodes.append(node("Flatten", c.name, [source], c.output, [.init(name: "axis", value: .int(1))]))
  }

  private mutating func concat(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    guard p.integer(100) == 0 else {
      throw NeuralCoreError(.unsupported, "Core ML layer '\(c.name)': sequence concat is not run")
    }
    add("Concat", c, [.init(name: "axis", value: .int(1))])
  }

  private mutating func clip(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let low = try constant(c.name + "__min", [p.float(1)], shape: [])
    let high = try constant(c.name + "__max", [p.float(2)], shape: [])
    nodes.append(node("Clip", c.name, [c.inputs[0], low, high], c.output))
  }

  private mutating func reshapeStatic(_ p: CoreMLMessage, _ c: Context) throws(NeuralCoreError) {
    let shape = try p.integers(1)
    guard !shape.isEmpty, shape.count <= limits.maximumRank else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' reshapes to rank \(shape.count)")
    }
    let name = c.name + "__shape"
    initializers.append(
      ONNXTensor(name: name, dataType: .int64, value: .integer(shape, shape: [shape.count])))
    nodes.append(node("Reshape", c.name, [c.inputs[0], name], c.output))
  }

  // MARK: - Helpers

  /// `valid` (explicit border amounts, height first) or `same` padding as ONNX attributes.
  private func padding(valid: CoreMLMessage?, same: CoreMLMessage?, _ c: Context)
    throws(NeuralCoreError) -> [ONNXAttribute]
  {
    if let same {
      let mode = same.integer(1) == 1 ? "SAME_LOWER" : "SAME_UPPER"
      return [.init(name: "auto_pad", value: .string(mode))]
    }
    guard let amounts = try valid?.message(1) else { return [] }
    let edges = try amounts.messages(10)
    guard edges.isEmpty || edges.count == 2 else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' pads \(edges.count) dimensions, not 2")
    }
    guard edges.count == 2 else { return [] }
    let values = [
      edges[0].integer(1), edges[1].integer(1), edges[0].integer(2), edges[1].integer(2),
    ]
    guard values.allSatisfy({ (0...65_536).contains($0) }) else {
      throw NeuralCoreError(.malformedFile, "Core ML layer '\(c.name)' has padding \(values)")
    }
    return [.init(name: "pads", value: .ints(values))]
  }

  /// Two spatial sizes (height, width), or the default for both when the list is empty.
  private func sizes(_ values: [Int64], default value: Int, _ c: Context)
    throws(NeuralCoreError) -> [Int]
  {
    if values.isEmpty { return [value, value] }
    guard values.count == 2, values.allSatisfy({ (0...65_536).contains($0) }) else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' has spatial sizes \(values)")
    }
    return values.map { Int($0) }
  }

  /// The product of `dimensions` (each at least 1), checked against the element limit.
  private func elementCount(_ dimensions: [Int], _ c: Context) throws(NeuralCoreError) -> Int {
    guard dimensions.allSatisfy({ $0 > 0 }) else {
      throw NeuralCoreError(
        .malformedFile, "Core ML layer '\(c.name)' has weight dimensions \(dimensions)")
    }
    return try limits.checkedElementCount(of: dimensions, name: "\(c.name) weights")
  }

  private mutating func constant(_ name: String, _ values: [Float], shape: [Int])
    throws(NeuralCoreError) -> String
  {
    initializers.append(
      ONNXTensor(
        name: name, dataType: .float, value: .float(try Tensor(shape: shape, scalars: values))))
    return name
  }

  private mutating func add(_ op: String, _ c: Context, _ attributes: [ONNXAttribute]) {
    nodes.append(node(op, c.name, c.inputs, c.output, attributes))
  }

  private func node(
    _ op: String, _ name: String, _ inputs: [String], _ output: String,
    _ attributes: [ONNXAttribute] = []
  ) -> ONNXNode {
    ONNXNode(
      name: name, opType: op, domain: "", inputs: inputs, outputs: [output],
      attributes: attributes)
  }
}
