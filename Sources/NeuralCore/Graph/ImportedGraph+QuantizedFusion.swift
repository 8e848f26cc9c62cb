extension ImportedGraph {
  /// A per-tensor or per-axis quantization as a `DequantizeLinear` or `QuantizeLinear` node
  /// states it: the names of its data, scale and zero point.
  struct QuantizationNames {
    var data: String
    var scale: String
    var zeroPoint: String
    var axis: Int
  }

  /// Replaces the `DequantizeLinear -> operator -> QuantizeLinear` patterns of QDQ models with
  /// the quantized operator, as ONNX Runtime's QDQ transformer does: `Conv` becomes
  /// `QLinearConv`, `Add` `QLinearAdd`, `Mul` `QLinearMul`, `GlobalAveragePool`
  /// `QLinearGlobalAveragePool`, `Gemm` `QGemm`, and a `Flatten` or `Reshape` between equal
  /// quantizations runs on the integers.
  ///
  /// A pattern is replaced only when every float value inside it is read by the pattern alone
  /// and the weights and biases are dequantized constants whose quantization the integer
  /// operator states the same way; anything else runs as written. `DequantizeLinear` and
  /// `QuantizeLinear` nodes left without readers are removed.
  mutating func fuseQuantizedOperators() throws(NeuralCoreError) {
    guard nodes.contains(where: { $0.source.operatorName == "QuantizeLinear" }) else { return }
    var uses = useCounts()
    var producers: [String: Int] = [:]
    var readers: [String: [Int]] = [:]
    for (index, node) in nodes.enumerated() {
      for output in node.outputs where !output.isEmpty { producers[output] = index }
      for input in node.inputs where !input.isEmpty { readers[input, default: []].append(index) }
    }
    var removed = Set<Int>()
    for index in nodes.indices {
      let node = nodes[index]
      guard node.source.domain.isEmpty, let output = node.outputs.first,
        node.outputs.count == 1, uses[output] == 1,
        let reader = readers[output]?.first, !removed.contains(reader),
        nodes[reader].source.operatorName == "QuantizeLinear",
        let quantized = perTensorQuantization(nodes[reader])
      else { continue }
      let replacement: Node?
      switch node.source.operatorName {
      case "Conv":
        replacement = try quantizedConvolution(node, quantized, producers, uses)
      case "Gemm":
        replacement = try quantizedGemm(node, quantized, producers, uses)
      case "Add":
        replacement = try quantizedBinary(node, "QLinearAdd", quantized, producers, uses)
      case "Mul":
        replacement = try quantizedBinary(node, "QLinearMul", quantized, producers, uses)
      case "GlobalAveragePool":
        replacement = try quantizedUnary(
          node, "QLinearGlobalAveragePool", quantized, producers, uses)
      case "Flatten", "Reshape":
        replacement = try quantizedReshape(node, quantized, producers, uses)
      default:
        replacement = nil
      }
      guard var replacement else { continue }
      replacement.outputs = nodes[reader].outputs
      replacement.source.outputs = nodes[reader].outputs
      for input in node.inputs where !input.isEmpty { uses[input, default: 0] -= 1 }
      for input in replacement.inputs where !input.isEmpty { uses[input, default: 0] += 1 }
      nodes[index] = replacement
      removed.insert(reader)
    }
    nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    removeUnreadElementwiseNodes()
  }

  /// The scale, zero point and axis names of a `DequantizeLinear` or `QuantizeLinear` whose
  /// scale is one constant.
  private func perTensorQuantization(_ node: Node) -> QuantizationNames? {
    guard let names = quantizationNames(node), let scale = floatConstant(names.scale),
      scale.count == 1
    else { return nil }
    return names
  }

  /// The data, scale, zero point and axis names of a quantize or dequantize node.
  private func quantizationNames(_ node: Graph.Node) -> QuantizationNames? {
    guard node.inputs.count >= 2,
      (try? NodeAttributes(node: node).int("block_size", default: 0)) == 0
    else { return nil }
    let axis = (try? NodeAttributes(node: node).int("axis", default: 1)) ?? 1
    return QuantizationNames(
      data: node.inputs[0], scale: node.inputs[1],
      zeroPoint: node.inputs.count > 2 ? node.inputs[2] : "", axis: axis)
  }

  private func quantizationNames(_ node: Node) -> QuantizationNames? {
    quantizationNames(node.source)
  }

  /// The quantization of a value a run-time `DequantizeLinear` with one scale makes (other
  /// readers of the value keep the `DequantizeLinear`).
  private func dequantized(
    _ name: String, _ producers: [String: Int], _ uses: [String: Int]
  ) -> QuantizationNames? {
    guard let index = producers[name],
      nodes[index].source.operatorName == "DequantizeLinear"
    else { return nil }
    return perTensorQuantization(nodes[index])
  }

  /// The quantization of a constant folded from a `DequantizeLinear` while importing.
  private func dequantizedConstant(_ name: String) -> QuantizationNames? {
    foldedDequantizations[name].flatMap { quantizationNames($0) }
  }

  /// A node of a quantized operator replacing `node`.
  private func replacing(
    _ node: Node, with operatorName: String, domain: String = "", inputs: [String],
    attributes: [Graph.Attribute]
  ) throws(NeuralCoreError) -> Node {
    let source = Graph.Node(
      name: node.source.name, domain: domain, operatorName: operatorName, inputs: inputs,
      outputs: node.outputs, attributes: attributes)
    let opset = domain.isEmpty ? max(node.opset, 10) : 1
    let entry = try OperatorRegistry.entry(for: source, opset: opset)
    var replacement = Node(
      source: source, inputs: inputs, outputs: node.outputs, opset: opset, entry: entry)
    replacement.activation = node.activation
    return replacement
  }

  /// `DequantizeLinear(x) -> Conv(w, b) -> QuantizeLinear` as `QLinearConv`, the activation
  /// fused into the convolution kept.
  private func quantizedConvolution(
    _ node: Node, _ output: QuantizationNames, _ producers: [String: Int], _ uses: [String: Int]
  ) throws(NeuralCoreError) -> Node? {
    guard node.inputs.count >= 2, let input = dequantized(node.inputs[0], producers, uses),
      let weights = dequantizedConstant(node.inputs[1]),
      weights.axis == 0 || (floatConstant(weights.scale)?.count ?? 0) == 1
    else { return nil }
    guard let bias = integerBias(node, input, weights) else { return nil }
    return try replacing(
      node, with: "QLinearConv",
      inputs: [
        input.data, input.scale, input.zeroPoint, weights.data, weights.scale, weights.zeroPoint,
        output.scale, output.zeroPoint, bias,
      ], attributes: node.source.attributes)
  }

  /// `DequantizeLinear(a) -> Gemm(w, c) -> QuantizeLinear` as `com.microsoft` `QGemm`.
  private func quantizedGemm(
    _ node: Node, _ output: QuantizationNames, _ producers: [String: Int], _ uses: [String: Int]
  ) throws(NeuralCoreError) -> Node? {
    let attributes = node.attributes
    let transposed = try attributes.int("transB", default: 0) != 0
    guard node.activation == .identity, try attributes.int("transA", default: 0) == 0,
      try attributes.float("beta", default: 1) == 1, node.inputs.count >= 2,
      let input = dequantized(node.inputs[0], producers, uses),
      let weights = dequantizedConstant(node.inputs[1]),
      weights.axis == (transposed ? 0 : 1) || (floatConstant(weights.scale)?.count ?? 0) == 1
    else { return nil }
    guard let bias = integerBias(node, input, weights) else { return nil }
    return try replacing(
      node, with: "QGemm", domain: "com.microsoft",
      inputs: [
        input.data, input.scale, input.zeroPoint, weights.data, weights.scale, weights.zeroPoint,
        bias, output.scale, output.zeroPoint,
      ],
      attributes: node.source.attributes.filter { ["alpha", "transA", "transB"].contains($0.name) })
  }

  /// `DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear` as `QLinearAdd`.
  private func quantizedBinary(
    _ node: Node, _ operatorName: String, _ output: QuantizationNames,
    _ producers: [String: Int], _ uses: [String: Int]
  ) throws(NeuralCoreError) -> Node? {
    guard node.activation == .identity, node.inputs.count == 2,
      node.inputs[0] != node.inputs[1],
      let a = dequantized(node.inputs[0], producers, uses),
      let b = dequantized(node.inputs[1], producers, uses)
    else { return nil }
    return try replacing(
      node, with: operatorName, domain: "com.microsoft",
      inputs: [
        a.data, a.scale, a.zeroPoint, b.data, b.scale, b.zeroPoint, output.scale,
        output.zeroPoint,
      ], attributes: [])
  }

  /// `DequantizeLinear(x) -> operator -> QuantizeLinear` as the `com.microsoft` operator.
  private func quantizedUnary(
    _ node: Node, _ operatorName: String, _ output: QuantizationNames,
    _ producers: [String: Int], _ uses: [String: Int]
  ) throws(NeuralCoreError) -> Node? {
    guard node.activation == .identity, node.inputs.count == 1,
      let input = dequantized(node.inputs[0], producers, uses)
    else { return nil }
    return try replacing(
      node, with: operatorName, domain: "com.microsoft",
      inputs: [input.data, input.scale, input.zeroPoint, output.scale, output.zeroPoint],
      attributes: [])
  }

  /// `DequantizeLinear(x) -> Flatten|Reshape -> QuantizeLinear` with the same scale and zero
  /// point on both sides as the reshape of the integers.
  private func quantizedReshape(
    _ node: Node, _ output: QuantizationNames, _ producers: [String: Int], _ uses: [String: Int]
  ) throws(NeuralCoreError) -> Node? {
    guard let first = node.inputs.first, let input = dequantized(first, producers, uses),
      constants[input.scale] == constants[output.scale],
      constants[input.zeroPoint] == constants[output.zeroPoint],
      elementTypes[input.zeroPoint] == elementTypes[output.zeroPoint]
    else { return nil }
    var replacement = node
    replacement.inputs[0] = input.data
    replacement.source.inputs[0] = input.data
    return replacement
  }

  /// The name of the int32 bias a node's third input was dequantized from: `""` without a
  /// bias, `nil` when it is not a dequantized constant at the product of the input's and the
  /// weights' scales.
  private func integerBias(
    _ node: Node, _ input: QuantizationNames, _ weights: QuantizationNames
  ) -> String? {
    guard node.inputs.count > 2 && !node.inputs[2].isEmpty else { return "" }
    guard let bias = dequantizedConstant(node.inputs[2]),
      matchesProductScale(bias, input.scale, weights.scale)
    else { return nil }
    return bias.data
  }

  /// Whether a bias was quantized at the product of the input's and the weights' scales with
  /// zero point 0, as the integer operators take it.
  private func matchesProductScale(
    _ bias: QuantizationNames, _ inputScale: String, _ weightScale: String
  ) -> Bool {
    guard let biasScales = floatConstant(bias.scale), let input = floatConstant(inputScale),
      let weights = floatConstant(weightScale), input.count == 1,
      biasScales.count == weights.count || biasScales.count == 1
    else { return false }
    if !bias.zeroPoint.isEmpty {
      guard case .integer(let points, _)? = constants[bias.zeroPoint],
        points.allSatisfy({ $0 == 0 })
      else { return false }
    }
    for (index, scale) in biasScales.scalars.enumerated() {
      let expected = input.scalars[0] * weights.scalars[weights.count == 1 ? 0 : index]
      guard abs(scale - expected) <= 1e-6 * abs(expected) else { return false }
    }
    return true
  }
}
