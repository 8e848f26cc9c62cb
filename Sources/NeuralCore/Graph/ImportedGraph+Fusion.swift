import Foundation

extension ImportedGraph {
  /// Folds BatchNormalization into convolutions, fuses activations into them, packs weights.
  mutating func fuse() throws(NeuralCoreError) {
    foldConstantIdentities()
    try foldBatchNormalization()
    try rewritePatterns()
    try fuseGatedActivations()
    try fuseActivations()
    try fuseQuantizedLookups()
    try fuseQuantizedOperators()
    try packConvolutions()
  }

  /// Makes the output of each `Identity` of a constant that constant (PyTorch's exporter writes
  /// one Identity per reuse of a shared parameter, such as ConvNeXt's deduplicated layer
  /// scales), so that the fusions below see the constant.
  private mutating func foldConstantIdentities() {
    var kept: [Node] = []
    for node in nodes {
      guard node.source.operatorName == "Identity", node.source.domain.isEmpty,
        node.inputs.count == 1, node.outputs.count == 1, let value = constants[node.inputs[0]],
        !outputs.contains(where: { $0.name == node.outputs[0] })
      else {
        kept.append(node)
        continue
      }
      constants[node.outputs[0]] = value
      elementTypes[node.outputs[0]] = elementTypes[node.inputs[0]]
    }
    nodes = kept
  }

  /// How many times each value is read: node inputs plus graph outputs.
  func useCounts() -> [String: Int] {
    var uses: [String: Int] = [:]
    for node in nodes {
      for input in node.inputs where !input.isEmpty { uses[input, default: 0] += 1 }
    }
    for output in outputs { uses[output.name, default: 0] += 1 }
    return uses
  }

  /// The float constant named `name`, or `nil` when the value is computed or not float.
  func floatConstant(_ name: String) -> Tensor? {
    guard case .float(let tensor)? = constants[name] else { return nil }
    return tensor
  }

  /// The index of the Conv node producing `name` when only one node reads it.
  private func soleConvolutionProducer(of name: String, uses: [String: Int]) -> Int? {
    guard uses[name] == 1 else { return nil }
    return nodes.firstIndex { $0.source.operatorName == "Conv" && $0.outputs.first == name }
  }

  /// Folds each BatchNormalization whose input is a convolution read by nothing else.
  ///
  /// Use counts are taken once: a fold removes the BatchNormalization and hands its outputs to
  /// the convolution, so every count a later fold reads (of a convolution's output) is unchanged.
  private mutating func foldBatchNormalization() throws(NeuralCoreError) {
    let uses = useCounts()
    var index = 0
    while index < nodes.count {
      let node = nodes[index]
      guard node.source.operatorName == "BatchNormalization", node.inputs.count == 5,
        node.outputs.dropFirst().allSatisfy(\.isEmpty),
        try node.attributes.int("training_mode", default: 0) == 0,
        let convolutionIndex = soleConvolutionProducer(of: node.inputs[0], uses: uses),
        let scale = floatConstant(node.inputs[1]), let shift = floatConstant(node.inputs[2]),
        let mean = floatConstant(node.inputs[3]), let variance = floatConstant(node.inputs[4])
      else {
        index += 1
        continue
      }
      let convolution = nodes[convolutionIndex]
      guard convolution.inputs.count >= 2, let weights = floatConstant(convolution.inputs[1]),
        weights.rank >= 3
      else {
        index += 1
        continue
      }
      let channels = weights.shape[0]
      let bias: Tensor?
      if convolution.inputs.count > 2 && !convolution.inputs[2].isEmpty {
        guard let constantBias = floatConstant(convolution.inputs[2]) else {
          index += 1
          continue
        }
        bias = constantBias
      } else {
        bias = nil
      }
      guard [scale, shift, mean, variance].allSatisfy({ $0.count == channels }),
        bias.map({ $0.count == channels }) ?? true
      else {
        throw node.attributes.error(
          .shapeMismatch, "BatchNormalization parameters do not match \(channels) channels")
      }
      let epsilon = try node.attributes.float("epsilon", default: 1e-5)
      let perChannel = weights.count / max(channels, 1)
      var foldedWeights = weights.scalars
      var foldedBias = [Float](repeating: 0, count: channels)
      for channel in 0..<channels {
        let factor = scale.scalars[channel] / (variance.scalars[channel] + epsilon).squareRoot()
        for offset in 0..<perChannel { foldedWeights[channel * perChannel + offset] *= factor }
        let original = bias?.scalars[channel] ?? 0
        foldedBias[channel] =
          (original - mean.scalars[channel]) * factor + shift.scalars[channel]
      }
      let prefix = "\(convolution.outputs[0])::folded"
      constants[prefix + "::weight"] = .float(
        try Tensor(shape: weights.shape, scalars: foldedWeights))
      constants[prefix + "::bias"] = .float(try Tensor(shape: [channels], scalars: foldedBias))
      var inputs = convolution.inputs
      inputs[1] = prefix + "::weight"
      if inputs.count > 2 {
        inputs[2] = prefix + "::bias"
      } else {
        inputs.append(prefix + "::bias")
      }
      nodes[convolutionIndex].inputs = inputs
      nodes[convolutionIndex].outputs = [node.outputs[0]]
      nodes.remove(at: index)
    }
  }

  /// The activation `Clip` computes when its bounds are attributes (before opset 11) or
  /// constants, else `nil`.
  static func clipActivation(
    _ graph: ImportedGraph, _ node: Node
  ) throws(NeuralCoreError) -> Activation? {
    let attributes = node.attributes
    if node.opset < 11 {
      return .clip(
        min: try attributes.float("min", default: -.greatestFiniteMagnitude),
        max: try attributes.float("max", default: .greatestFiniteMagnitude))
    }
    var bounds: [Float] = [-.greatestFiniteMagnitude, .greatestFiniteMagnitude]
    for position in 1..<min(node.inputs.count, 3) where !node.inputs[position].isEmpty {
      guard let bound = graph.floatConstant(node.inputs[position]), bound.count == 1 else {
        return nil
      }
      bounds[position - 1] = bound.scalars[0]
    }
    return .clip(min: bounds[0], max: bounds[1])
  }

  /// Fuses each activation whose input is a convolution read by nothing else into it (use
  /// counts stay valid across fusions, as for ``foldBatchNormalization()``).
  private mutating func fuseActivations() throws(NeuralCoreError) {
    let uses = useCounts()
    var index = 0
    while index < nodes.count {
      let node = nodes[index]
      guard let activation = try node.entry.fusedActivation?(self, node),
        let input = node.inputs.first,
        let convolutionIndex = soleConvolutionProducer(of: input, uses: uses),
        nodes[convolutionIndex].activation == .identity
      else {
        index += 1
        continue
      }
      nodes[convolutionIndex].activation = activation
      nodes[convolutionIndex].outputs = node.outputs
      nodes.remove(at: index)
    }
  }

  /// Applies the pattern rewrites that registry entries declare (``OperatorEntry/rewrite``),
  /// each at the nodes of its operator, with use counts taken again after each rewrite.
  private mutating func rewritePatterns() throws(NeuralCoreError) {
    var uses = useCounts()
    var index = 0
    while index < nodes.count {
      if let rewrite = nodes[index].entry.rewrite, try rewrite(&self, index, uses) {
        // A rewrite removes nodes around this one; what follows keeps its order.
        uses = useCounts()
        index = max(0, index - 1)
        continue
      }
      index += 1
    }
  }

  /// Fuses each `x * g(x)` whose `x` is a convolution read only by the gate and the product
  /// (SiLU as `Mul(x, Sigmoid(x))`, hard-swish as `Mul(x, HardSigmoid(x))`) into that
  /// convolution as one activation, removing the gate and the product.
  private mutating func fuseGatedActivations() throws(NeuralCoreError) {
    let uses = useCounts()
    var index = 0
    while index < nodes.count {
      guard let fused = try gatedProduct(at: index, uses: uses) else {
        index += 1
        continue
      }
      nodes[fused.convolution].activation = fused.activation
      nodes[fused.convolution].outputs = nodes[index].outputs
      // The later index first, so the earlier one still names its node (a malformed file may
      // list the gate after the product).
      let gate = fused.gate
      nodes.remove(at: max(index, gate))
      nodes.remove(at: min(index, gate))
      if gate < index { index -= 1 }
    }
  }

  /// The convolution, gate and activation of the product at `index` when it is `x * g(x)` with
  /// `x` a convolution's output that only the gate and the product read.
  private func gatedProduct(
    at index: Int, uses: [String: Int]
  ) throws(NeuralCoreError) -> (convolution: Int, gate: Int, activation: Activation)? {
    let product = nodes[index]
    guard product.entry.multipliesGates, product.inputs.count == 2 else { return nil }
    for (x, gated) in [
      (product.inputs[0], product.inputs[1]), (product.inputs[1], product.inputs[0]),
    ]
    where uses[gated] == 1 && uses[x] == 2 {
      guard let gate = producer(of: gated),
        nodes[gate].inputs.first == x, nodes[gate].outputs.count == 1,
        let activation = try nodes[gate].entry.gatedActivation?(nodes[gate]),
        let convolution = nodes.firstIndex(where: {
          $0.source.operatorName == "Conv" && $0.outputs.first == x
        }),
        nodes[convolution].activation == .identity, nodes[convolution].outputs.count == 1
      else { continue }
      return (convolution, gate, activation)
    }
    return nil
  }

  private mutating func packConvolutions() throws(NeuralCoreError) {
    for index in nodes.indices where nodes[index].source.operatorName == "Conv" {
      let node = nodes[index]
      guard let parts = try constantConvolution(node) else { continue }
      if parts.weights.rank == 4,
        let blocked = BlockedConvolution(
          weights: parts.weights.scalars, bias: parts.bias, outputChannels: parts.weights.shape[0],
          inputChannels: parts.weights.shape[1] * parts.groups, groups: parts.groups,
          window: parts.window, activation: node.activation, kernels: kernels)
      {
        nodes[index].blocked = blocked
        continue
      }
      nodes[index].convolution = Self.pack(parts, activation: node.activation, kernels: kernels)
    }
  }

  /// A Conv node's convolution packed for the NCHW kernels, or `nil` when its weights or bias are
  /// not constants.
  ///
  /// The planner calls it for a convolution packed only in blocked form whose window the blocked
  /// kernels cannot run.
  func packedConvolution(_ node: Node) throws(NeuralCoreError) -> Convolution? {
    guard let parts = try constantConvolution(node) else { return nil }
    return Self.pack(parts, activation: node.activation, kernels: kernels)
  }

  private static func pack(
    _ parts: (weights: Tensor, bias: [Float]?, groups: Int, window: Window),
    activation: Activation, kernels: KernelSet
  ) -> Convolution {
    Convolution(
      weights: parts.weights.scalars, bias: parts.bias, outputChannels: parts.weights.shape[0],
      inputChannels: parts.weights.shape[1] * parts.groups, groups: parts.groups,
      window: parts.window, activation: activation, kernels: kernels)
  }

  /// The constant weights and bias of a Conv node, its groups and its kernel window (without
  /// strides or padding), checked against each other.
  private func constantConvolution(
    _ node: Node
  ) throws(NeuralCoreError) -> (weights: Tensor, bias: [Float]?, groups: Int, window: Window)? {
    guard node.inputs.count >= 2, let weights = floatConstant(node.inputs[1]),
      weights.rank == 3 || weights.rank == 4
    else { return nil }
    var bias: [Float]?
    if node.inputs.count > 2 && !node.inputs[2].isEmpty {
      guard let constantBias = floatConstant(node.inputs[2]) else { return nil }
      guard constantBias.count == weights.shape[0] else {
        throw node.attributes.error(
          .shapeMismatch, "bias has \(constantBias.count) values for \(weights.shape[0]) filters")
      }
      bias = constantBias.scalars
    }
    let groups = try node.attributes.int("group", default: 1)
    guard groups >= 1, weights.shape[0] % groups == 0, weights.shape[0] > 0 else {
      throw node.attributes.error(
        .shapeMismatch, "\(weights.shape[0]) filters do not split into \(groups) groups")
    }
    let window = Window(
      kernelHeight: weights.rank == 4 ? weights.shape[2] : 1,
      kernelWidth: weights.shape[weights.rank - 1])
    return (weights, bias, groups, window)
  }
}
