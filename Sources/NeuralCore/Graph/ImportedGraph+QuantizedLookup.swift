extension ImportedGraph {
  /// The domain and name of the operator a quantized lookup imports as: `QuantizedLookup(x,
  /// table)` maps each 8-bit value of `x` to `table[x - min]`, where `min` is the lowest value of
  /// `x`'s type and the table's element type is the output's.
  static let lookupDomain = "ai.visioncatalog"
  static let lookupOperator = "QuantizedLookup"

  /// The most nodes one lookup absorbs.
  private static let lookupRegionLimit = 32

  /// The nodes of a region computed element by element from one 8-bit tensor.
  private struct LookupCone {
    /// Indices into `nodes`.
    var members: Set<Int>
    /// The 8-bit tensor every member's value derives from.
    var input: String
  }

  /// Replaces each region of element-wise nodes that computes an 8-bit tensor from another one
  /// (SiLU in a QDQ model is `DequantizeLinear`, `Sigmoid`, `QuantizeLinear`,
  /// `DequantizeLinear`, `Mul`, `QuantizeLinear`) with one `QuantizedLookup` of a 256-entry
  /// table, as ONNX Runtime does for its quantized sigmoid and leaky ReLU.
  ///
  /// Members are the nodes whose entries compute per element, with scalar constant operands.
  /// The table is the region itself run by the engine on the 256 values of the input's type, so
  /// the lookup gives the bytes the nodes would. Nodes left without readers are removed.
  mutating func fuseQuantizedLookups() throws(NeuralCoreError) {
    guard nodes.contains(where: { $0.source.operatorName == "QuantizeLinear" }) else { return }
    var producers: [String: Int] = [:]
    for (index, node) in nodes.enumerated() {
      for output in node.outputs where !output.isEmpty { producers[output] = index }
    }
    var absorbed = Set<Int>()
    var memo: [Int: LookupCone?] = [:]
    for index in nodes.indices.reversed() where !absorbed.contains(index) {
      guard writesQuantizedValue(nodes[index]),
        let cone = lookupCone(of: index, producers, &memo),
        let inputType = quantizedType(of: cone.input, producers),
        let outputType = quantizedType(of: nodes[index].outputs[0], producers),
        let table = try lookupTable(cone, root: index, inputType: inputType)
      else { continue }
      absorbed.formUnion(cone.members)
      nodes[index] = try lookupNode(
        replacing: nodes[index], input: cone.input, table: table, type: outputType)
    }
    removeUnreadElementwiseNodes()
  }

  /// Whether a node computing per element writes an 8-bit value: `QuantizeLinear`, or one of
  /// the `com.microsoft` quantized operators.
  private func writesQuantizedValue(_ node: Node) -> Bool {
    node.entry.computesPerElement && node.outputs.count == 1 && node.activation == .identity
      && (node.source.operatorName == "QuantizeLinear"
        || (node.entry.readsIntegerTensors && node.source.operatorName != "DequantizeLinear"))
  }

  /// The region ending at the node at `index`, when all of it derives from one 8-bit tensor.
  private func lookupCone(
    of index: Int, _ producers: [String: Int], _ memo: inout [Int: LookupCone?]
  ) -> LookupCone? {
    if let known = memo[index] { return known }
    memo[index] = .some(nil)  // A cycle cannot occur in a sorted graph; this ends any.
    let cone = computeLookupCone(of: index, producers, &memo)
    memo[index] = cone
    return cone
  }

  private func computeLookupCone(
    of index: Int, _ producers: [String: Int], _ memo: inout [Int: LookupCone?]
  ) -> LookupCone? {
    let node = nodes[index]
    guard node.entry.computesPerElement, node.activation == .identity, node.outputs.count == 1
    else { return nil }
    var cone = LookupCone(members: [index], input: "")
    for input in node.inputs where !input.isEmpty {
      if let constant = constants[input] {
        guard constant.shape.reduce(1, *) == 1 else { return nil }
        continue
      }
      let inner: LookupCone
      if let producer = producers[input], nodes[producer].entry.computesPerElement,
        !node.entry.readsIntegerTensors || writesQuantizedValue(nodes[producer]),
        let found = lookupCone(of: producer, producers, &memo)
      {
        inner = found
      } else if node.entry.readsIntegerTensors {
        inner = LookupCone(members: [], input: input)
      } else {
        return nil
      }
      guard cone.input.isEmpty || cone.input == inner.input else { return nil }
      cone.input = inner.input
      cone.members.formUnion(inner.members)
      guard cone.members.count <= Self.lookupRegionLimit else { return nil }
    }
    return cone.input.isEmpty ? nil : cone
  }

  /// The 8-bit type of a graph input or of a value a quantizing node writes; `nil` otherwise.
  private func quantizedType(of name: String, _ producers: [String: Int]) -> ElementType? {
    let type: ElementType
    if let producer = producers[name] {
      let node = nodes[producer]
      let zeroPoint =
        node.source.operatorName == "QuantizeLinear"
        ? 2 : (node.source.operatorName == "QLinearConv" ? 7 : node.inputs.count - 1)
      guard writesQuantizedValue(node) || node.source.operatorName == "QLinearConv",
        (try? node.attributes.int("output_dtype", default: 0)) == 0
      else { return nil }
      type =
        zeroPoint < node.inputs.count && !node.inputs[zeroPoint].isEmpty
        ? ImportedGraph.elementType(of: node.inputs[zeroPoint], constants, elementTypes)
        : .uint8
    } else {
      guard inputs.contains(where: { $0.name == name }), let declared = elementTypes[name] else {
        return nil
      }
      type = declared
    }
    return type == .int8 || type == .uint8 ? type : nil
  }

  /// The region's output for each value of its input's type, computed by planning and running
  /// the region's own nodes; `nil` when they do not plan on a 256-element vector.
  private func lookupTable(
    _ cone: LookupCone, root: Int, inputType: ElementType
  ) throws(NeuralCoreError) -> [Int64]? {
    guard let range = inputType.integerRange else { return nil }
    let members = cone.members.sorted()
    var needed: [String: Graph.Constant] = [:]
    var opsets: [String: Int] = [:]
    let sources = members.map { index in
      let node = nodes[index]
      for input in node.inputs where constants[input] != nil { needed[input] = constants[input] }
      opsets[node.source.domain] = node.opset
      var source = node.source
      source.inputs = node.inputs
      source.outputs = node.outputs
      return source
    }
    var types = elementTypes
    types[cone.input] = inputType
    let output = nodes[root].outputs[0]
    let region = Graph(
      nodes: sources, constants: needed,
      inputs: [TensorDescription(name: cone.input, shape: [256])],
      outputs: [TensorDescription(name: output, shape: nil)], opsetImports: opsets,
      elementTypes: types)
    let values = (range.lowerBound...range.upperBound).map { Float($0) }
    do throws(NeuralCoreError) {
      let imported = try ImportedGraph(graph: region, kernels: kernels, fusing: false)
      var builder = try PlanBuilder(graph: imported, inputShapes: [cone.input: [256]])
      let plan = try builder.build()
      var arena: [Float] = []
      let results = try plan.run(
        [cone.input: try Tensor(shape: [256], scalars: values)], arena: &arena, threads: 1)
      guard let table = results[output], table.count == 256 else { return nil }
      return table.scalars.map { Int64($0) }
    } catch {
      return nil
    }
  }

  /// The `QuantizedLookup` node writing `node`'s output from `input` through `table`.
  private mutating func lookupNode(
    replacing node: Node, input: String, table: [Int64], type: ElementType
  ) throws(NeuralCoreError) -> Node {
    let tableName = "\(node.outputs[0])#lookup"
    constants[tableName] = .integer(table, shape: [256])
    elementTypes[tableName] = type
    let source = Graph.Node(
      name: node.source.name, domain: Self.lookupDomain, operatorName: Self.lookupOperator,
      inputs: [input, tableName], outputs: node.outputs, attributes: [])
    let entry = try OperatorRegistry.entry(for: source, opset: 1)
    return Node(
      source: source, inputs: source.inputs, outputs: node.outputs, opset: 1, entry: entry)
  }

  /// Removes element-wise nodes (quantizations included) whose outputs nothing reads.
  mutating func removeUnreadElementwiseNodes() {
    var changed = true
    while changed {
      changed = false
      let uses = useCounts()
      nodes.removeAll { node in
        guard node.entry.computesPerElement,
          node.outputs.allSatisfy({ $0.isEmpty || uses[$0, default: 0] == 0 })
        else { return false }
        changed = true
        return true
      }
    }
  }
}
