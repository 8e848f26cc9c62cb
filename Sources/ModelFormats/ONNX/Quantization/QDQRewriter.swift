import NeuralCore

/// The plan and rewrite behind `ONNXModel.quantized(ranges:keepingFloat:channelMeans:)`: which
/// nodes are quantized, which activations get a `QuantizeLinear`/`DequantizeLinear` pair, and
/// the graph with the pairs, the int8 weights and the int32 biases.
struct QDQRewriter {
  /// A quantizable layer: its node and the channel axis of its weight.
  struct Layer {
    /// The layer's name: the node's, or its first output's.
    var name: String
    /// The node's position in the graph.
    var index: Int
    /// The output-channel dimension of the weight.
    var axis: Int
  }

  /// Operators quantized on their activations alone: no weights.
  static let activationOperators: Set<String> = ["Add", "AveragePool", "GlobalAveragePool"]

  let graph: ONNXGraph
  /// The layers that are quantized, in graph order.
  let quantizedLayers: [Layer]
  /// The positions of every quantized node: layers and activation operators.
  let quantizedNodes: Set<Int>
  /// For a quantized node whose `Relu` or `Clip` is folded into its output range, the
  /// activation's position.
  let fusedActivations: [Int: Int]
  /// The activations that get a pair, graph inputs first, then in the order they are made.
  let quantizedTensors: [String]

  /// The quantizable layers of a graph, in order.
  static func layers(of graph: ONNXGraph) -> [Layer] {
    let constants = Dictionary(
      graph.initializers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var layers: [Layer] = []
    for (index, node) in graph.nodes.enumerated()
    where (node.domain.isEmpty || node.domain == "ai.onnx") && node.inputs.count >= 2 {
      guard let weight = constants[node.inputs[1]], case .float = weight.value,
        constants[node.inputs[0]] == nil, !node.inputs[0].isEmpty
      else { continue }
      let axis: Int
      switch node.opType {
      case "Conv" where weight.shape.count >= 3:
        axis = 0
      case "Gemm"
      where weight.shape.count == 2 && (node.attribute(named: "transA")?.intValue ?? 0) == 0:
        axis = (node.attribute(named: "transB")?.intValue ?? 0) == 1 ? 0 : 1
      case "MatMul" where weight.shape.count == 2:
        axis = 1
      default:
        continue
      }
      let name = node.name.isEmpty ? (node.outputs.first ?? "node \(index)") : node.name
      layers.append(Layer(name: name, index: index, axis: axis))
    }
    return layers
  }

  /// Plans the quantization of `graph` with the named layers kept in float.
  init(graph: ONNXGraph, keepingFloat: Set<String>) {
    self.graph = graph
    let nodes = graph.nodes
    let layers = Self.layers(of: graph).filter { !keepingFloat.contains($0.name) }
    quantizedLayers = layers
    var constantNames = Set(graph.initializers.map(\.name))
    for node in nodes where node.opType == "Constant" { constantNames.formUnion(node.outputs) }
    let isActivation = { (name: String) in !name.isEmpty && !constantNames.contains(name) }

    var quantized = Set(layers.map(\.index))
    for (index, node) in nodes.enumerated()
    where Self.activationOperators.contains(node.opType) && node.domain.isEmpty {
      let inputs = node.opType == "Add" ? node.inputs : Array(node.inputs.prefix(1))
      if inputs.count == (node.opType == "Add" ? 2 : 1), inputs.allSatisfy(isActivation) {
        quantized.insert(index)
      }
    }
    quantizedNodes = quantized

    var consumers: [String: [Int]] = [:]
    for (index, node) in nodes.enumerated() {
      for input in Set(node.inputs) { consumers[input, default: []].append(index) }
    }
    let graphOutputs = Set(graph.outputs.map(\.name))
    var fused: [Int: Int] = [:]
    for index in quantized.sorted() {
      guard let output = nodes[index].outputs.first, !graphOutputs.contains(output),
        let readers = consumers[output], readers.count == 1,
        Self.isFoldable(nodes[readers[0]], graph: graph)
      else { continue }
      fused[index] = readers[0]
    }
    fusedActivations = fused

    // The inputs each quantized node reads as activations, and the outputs it makes.
    var inputs: Set<String> = []
    for index in quantized {
      let node = nodes[index]
      let read = Self.activationOperators.contains(node.opType) ? node.inputs : [node.inputs[0]]
      inputs.formUnion(read.filter(isActivation))
    }
    var chosen = inputs
    for index in quantized {
      let node = nodes[index]
      guard let output = Self.output(of: index, in: nodes, fused: fused) else { continue }
      let isMatrixProduct = node.opType == "Gemm" || node.opType == "MatMul"
      if !isMatrixProduct || fused[index] != nil || inputs.contains(output) {
        chosen.insert(output)
      }
    }
    var ordered = graph.inputs.map(\.name).filter { chosen.contains($0) }
    let removed = Set(fused.values)
    for index in nodes.indices where !removed.contains(index) {
      var outputs = nodes[index].outputs
      if let activation = fused[index], let output = nodes[activation].outputs.first,
        !outputs.isEmpty
      {
        outputs[0] = output
      }
      ordered += outputs.filter { chosen.contains($0) }
    }
    var seen: Set<String> = []
    quantizedTensors = ordered.filter { seen.insert($0).inserted }
  }

  /// The value a quantized node's first output ends up named: its folded activation's output.
  private static func output(of index: Int, in nodes: [ONNXNode], fused: [Int: Int]) -> String? {
    if let activation = fused[index] { return nodes[activation].outputs.first }
    return nodes[index].outputs.first
  }

  /// Whether a quantization range from 0 reproduces the activation: `Relu`, or `Clip` from a
  /// constant 0 to a constant (or no) maximum.
  private static func isFoldable(_ node: ONNXNode, graph: ONNXGraph) -> Bool {
    guard node.domain.isEmpty, node.outputs.count == 1 else { return false }
    switch node.opType {
    case "Relu":
      return true
    case "Clip":
      guard node.inputs.count >= 2, !node.inputs[1].isEmpty,
        constantScalar(node.inputs[1], in: graph) == 0
      else { return false }
      return node.inputs.count < 3 || node.inputs[2].isEmpty
        || constantScalar(node.inputs[2], in: graph) != nil
    default:
      return false
    }
  }

  /// The value of a one-element constant: an initializer or a `Constant` node's output.
  private static func constantScalar(_ name: String, in graph: ONNXGraph) -> Float? {
    let tensor =
      graph.initializer(named: name)
      ?? graph.nodes.first { $0.opType == "Constant" && $0.outputs.first == name }?
      .attribute(named: "value")?.tensorValue
    guard let tensor, tensor.value.count == 1, let values = try? tensor.floatTensor() else {
      return nil
    }
    return values.scalars.first
  }

  /// The graph with its quantized operators in QDQ form.
  func rewritten(ranges: [String: ClosedRange<Float>], channelMeans: [String: [Float]] = [:])
    throws(ModelFormatsError) -> ONNXGraph
  {
    var names = Names(graph)
    var initializers = graph.initializers
    var pairs: [String: [ONNXNode]] = [:]
    var dequantized: [String: String] = [:]
    var parameters: [String: AffineQuantization] = [:]
    for tensor in quantizedTensors {
      guard let range = ranges[tensor] else {
        throw ModelFormatsError(
          .missingValue, "no calibrated range for the activation '\(tensor)'")
      }
      let quantization = AffineQuantization(uint8Range: range)
      parameters[tensor] = quantization
      let scale = names.unique("\(tensor)_scale")
      let zeroPoint = names.unique("\(tensor)_zero_point")
      let scaleTensor = try ModelFormatsError.converting(
        try Tensor(shape: [], scalars: [quantization.scale]))
      initializers += [
        ONNXTensor(name: scale, dataType: .float, value: .float(scaleTensor)),
        ONNXTensor(
          name: zeroPoint, dataType: .uint8,
          value: .integer([Int64(quantization.zeroPoint)], shape: [])),
      ]
      let quantizedName = names.unique("\(tensor)_QuantizeLinear_Output")
      let dequantizedName = names.unique("\(tensor)_DequantizeLinear_Output")
      pairs[tensor] = [
        ONNXNode(
          name: names.unique("\(tensor)_QuantizeLinear"), opType: "QuantizeLinear", domain: "",
          inputs: [tensor, scale, zeroPoint], outputs: [quantizedName], attributes: []),
        ONNXNode(
          name: names.unique("\(tensor)_DequantizeLinear"), opType: "DequantizeLinear",
          domain: "", inputs: [quantizedName, scale, zeroPoint], outputs: [dequantizedName],
          attributes: []),
      ]
      dequantized[tensor] = dequantizedName
    }

    var constants = ConstantQuantizer(graph: graph)
    var body: [ONNXNode] = []
    for input in graph.inputs { body += pairs[input.name] ?? [] }
    let removed = Set(fusedActivations.values)
    let layers = Dictionary(
      quantizedLayers.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
    for (index, original) in graph.nodes.enumerated() where !removed.contains(index) {
      var node = original
      if let activation = fusedActivations[index],
        let output = graph.nodes[activation].outputs.first
      {
        node.outputs[0] = output
      }
      node.inputs = node.inputs.map { dequantized[$0] ?? $0 }
      if let layer = layers[index] {
        node.inputs[1] = try constants.weight(original.inputs[1], axis: layer.axis, names: &names)
        if let input = parameters[original.inputs[0]],
          let bias = try constants.bias(
            of: original, input: input, inputMeans: channelMeans[original.inputs[0]],
            names: &names)
        {
          node.inputs[2] = bias
        }
      }
      body.append(node)
      for output in node.outputs { body += pairs[output] ?? [] }
    }
    initializers += constants.initializers
    let nodes = constants.nodes + body
    var referenced = Set(graph.outputs.map(\.name))
    for node in nodes { referenced.formUnion(node.inputs) }
    let kept = initializers.filter { referenced.contains($0.name) }
    let dropped = Set(initializers.map(\.name)).subtracting(kept.map(\.name))
    return ONNXGraph(
      name: graph.name, nodes: nodes, initializers: kept,
      inputs: graph.inputs.filter { !dropped.contains($0.name) }, outputs: graph.outputs,
      valueInfo: graph.valueInfo)
  }
}

/// The names a graph uses, and fresh ones that clash with none of them.
struct Names {
  private var used: Set<String> = []

  /// The names of a graph's nodes, values, initializers, inputs and outputs.
  init(_ graph: ONNXGraph) {
    for node in graph.nodes {
      used.insert(node.name)
      used.formUnion(node.inputs)
      used.formUnion(node.outputs)
    }
    used.formUnion(graph.initializers.map(\.name))
    used.formUnion(graph.inputs.map(\.name))
    used.formUnion(graph.outputs.map(\.name))
  }

  /// A name that is not taken yet: `base`, else `base_1`, `base_2` and so on.
  ///
  /// The name returned is taken from then on.
  mutating func unique(_ base: String) -> String {
    var candidate = base
    var suffix = 1
    while !used.insert(candidate).inserted {
      candidate = "\(base)_\(suffix)"
      suffix += 1
    }
    return candidate
  }
}
