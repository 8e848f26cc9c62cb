/// A graph checked, sorted and optimized for planning.
///
/// Import validates every node's operator and attributes, orders nodes topologically, folds
/// BatchNormalization into the preceding convolution, fuses an activation that follows a
/// convolution, and packs constant convolution weights once.
struct ImportedGraph: Sendable {
  /// One node after optimization.
  struct Node: Sendable {
    var source: Graph.Node
    var inputs: [String]
    var outputs: [String]
    /// The version of the node's operator set domain the model imports.
    var opset: Int
    /// The registry entry that validated the node and plans it.
    let entry: OperatorEntry
    /// A convolution with constant weights, packed, with any folded BatchNormalization.
    var convolution: Convolution?
    /// The same convolution packed for the blocked channel layout, when it has that form on
    /// this CPU; `convolution` is then `nil`.
    var blocked: BlockedConvolution?
    /// The activation fused into a convolution.
    var activation: Activation = .identity

    var attributes: NodeAttributes { NodeAttributes(node: source) }
  }

  /// The kernel set convolutions are packed for and the blocked layout belongs to.
  let kernels: KernelSet
  var nodes: [Node]
  var constants: [String: Graph.Constant]
  /// The declared or folded element types of integer values, by name (see
  /// ``Graph/elementTypes``).
  var elementTypes: [String: ElementType]
  /// The `DequantizeLinear` nodes of constants folded while importing, by output: where the
  /// int8 weights of a QDQ model's convolution come from.
  var foldedDequantizations: [String: Graph.Node] = [:]
  var inputs: [TensorDescription]
  var outputs: [TensorDescription]

  /// The operators NeuralCore runs, by ONNX name (standard domain).
  static var supportedOperators: Set<String> { OperatorRegistry.standardOperators }

  /// Imports a graph.
  ///
  /// - Parameters:
  ///   - graph: The graph.
  ///   - kernels: The kernel set convolutions are packed for.
  ///   - fusing: Whether to run the fusions; a quantized lookup plans its region without them.
  /// - Throws: ``NeuralCoreError`` with code `unsupported` for an operator or attribute
  ///   NeuralCore does not run, `invalidGraph` for an inconsistent graph.
  init(graph: Graph, kernels: KernelSet = .active, fusing: Bool = true) throws(NeuralCoreError) {
    self.kernels = kernels
    let opset = graph.opsetVersion(forDomain: "") ?? 0
    guard opset >= 7 else {
      throw NeuralCoreError(.unsupported, "ONNX opset \(opset) is older than 7")
    }
    var constants = graph.constants
    var elementTypes = graph.elementTypes
    var foldedDequantizations: [String: Graph.Node] = [:]
    var nodes: [Node] = []
    for source in try ImportedGraph.sorted(graph) {
      let imported = graph.opsetVersion(forDomain: source.domain)
      let entry = try OperatorRegistry.entry(for: source, opset: imported)
      let nodeOpset = imported ?? opset
      let attributes = NodeAttributes(node: source)
      try attributes.requireOnly(entry.attributes)
      if let fold = entry.constantValue {
        guard let output = source.outputs.first else {
          throw attributes.error(.invalidGraph, "\(source.operatorName) has no output")
        }
        constants[output] = try fold(attributes)
        continue
      }
      if let fold = entry.constantInputs,
        source.inputs.allSatisfy({ $0.isEmpty || constants[$0] != nil }),
        let folded = try fold(
          attributes, source.inputs.map { $0.isEmpty ? nil : constants[$0] },
          source.inputs.map { ImportedGraph.elementType(of: $0, constants, elementTypes) })
      {
        for (output, value) in zip(source.outputs, folded) where !output.isEmpty {
          constants[output] = value.value
          elementTypes[output] = value.elementType
        }
        if source.operatorName == "DequantizeLinear", let output = source.outputs.first {
          foldedDequantizations[output] = source
        }
        continue
      }
      nodes.append(
        Node(
          source: source, inputs: source.inputs, outputs: source.outputs, opset: nodeOpset,
          entry: entry))
    }
    self.constants = constants
    self.elementTypes = elementTypes
    self.foldedDequantizations = foldedDequantizations
    self.nodes = nodes
    inputs = graph.inputs.filter { constants[$0.name] == nil }
    outputs = graph.outputs
    if fusing { try fuse() }
  }

  /// The element type of a constant: declared, or float and int64 by its kind.
  static func elementType(
    of name: String, _ constants: [String: Graph.Constant], _ types: [String: ElementType]
  ) -> ElementType {
    if let type = types[name] { return type }
    if case .integer? = constants[name] { return .int64 }
    return .float
  }

  /// The value of a `Constant` node, from whichever `value*` attribute it has.
  static func constantValue(_ attributes: NodeAttributes) throws(NeuralCoreError)
    -> Graph.Constant
  {
    if let tensor = try attributes.tensor("value") {
      return tensor
    }
    if let value = try attributes.float("value_float") {
      return .float(try Tensor(shape: [], scalars: [value]))
    }
    if let values = try attributes.floats("value_floats") {
      return .float(try Tensor(shape: [values.count], scalars: values))
    }
    if let value = try attributes.int("value_int") {
      return .integer([Int64(value)], shape: [])
    }
    if let values = try attributes.ints("value_ints") {
      return .integer(values.map { Int64($0) }, shape: [values.count])
    }
    throw attributes.error(.unsupported, "Constant without a supported value attribute")
  }

  /// Orders nodes so that every input is produced before it is used (Kahn's algorithm).
  private static func sorted(_ graph: Graph) throws(NeuralCoreError) -> [Graph.Node] {
    var producer: [String: Int] = [:]
    for (index, node) in graph.nodes.enumerated() {
      for output in node.outputs where !output.isEmpty {
        guard producer[output] == nil else {
          throw NeuralCoreError(.invalidGraph, "value '\(output)' is produced twice")
        }
        producer[output] = index
      }
    }
    var pending = [Int](repeating: 0, count: graph.nodes.count)
    var consumers = [[Int]](repeating: [], count: graph.nodes.count)
    for (index, node) in graph.nodes.enumerated() {
      for input in Set(node.inputs) where !input.isEmpty {
        if let source = producer[input] {
          pending[index] += 1
          consumers[source].append(index)
        }
      }
    }
    var ready = (0..<graph.nodes.count).filter { pending[$0] == 0 }
    var order: [Graph.Node] = []
    var cursor = 0
    while cursor < ready.count {
      let index = ready[cursor]
      cursor += 1
      order.append(graph.nodes[index])
      for consumer in consumers[index] {
        pending[consumer] -= 1
        if pending[consumer] == 0 { ready.append(consumer) }
      }
    }
    guard order.count == graph.nodes.count else {
      throw NeuralCoreError(.invalidGraph, "the graph has a cycle")
    }
    return order
  }
}
