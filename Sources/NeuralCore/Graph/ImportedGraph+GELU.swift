extension ImportedGraph {
  /// The operators of GELU's erf form as PyTorch exports it before opset 20:
  /// `Mul(Mul(x, Add(Erf(Div(x, sqrt(2))), 1)), 0.5)`, each intermediate read once; any input
  /// of Add and Mul may come first, and `Mul(x, 1 / sqrt(2))` may stand for the Div.
  struct GELUPattern {
    /// The indices of the Div, Erf, Add and first Mul, which the fusion removes.
    let removed: [Int]
    /// The index of the last Mul, which the fused node replaces.
    let last: Int
    /// The value GELU is applied to.
    let input: String
  }

  /// Replaces the erf-form GELU around the Erf node at `index` with one `Gelu` node.
  ///
  /// The C kernels run it in one pass over the tensor instead of five; `false` when the node is
  /// not part of that pattern.
  mutating func fuseGELU(at index: Int, uses: [String: Int]) throws(NeuralCoreError) -> Bool {
    guard let pattern = geluPattern(at: index, uses: uses) else { return false }
    let last = nodes[pattern.last]
    let source = Graph.Node(
      name: last.source.name, operatorName: "Gelu", inputs: [pattern.input],
      outputs: last.outputs)
    let opset = 20
    nodes[pattern.last] = Node(
      source: source, inputs: source.inputs, outputs: source.outputs, opset: opset,
      entry: try OperatorRegistry.entry(for: source, opset: opset))
    for removed in pattern.removed.sorted(by: >) { nodes.remove(at: removed) }
    return true
  }

  /// The erf-form GELU whose Erf is the node at `index`, or `nil`.
  func geluPattern(at index: Int, uses: [String: Int]) -> GELUPattern? {
    let erf = nodes[index]
    guard let scaled = erf.inputs.first, let erfOutput = single(erf), uses[scaled] == 1,
      uses[erfOutput] == 1,
      let division = producer(of: scaled),
      let x = scaledInput(nodes[division]),
      let add = soleReader(of: erfOutput), nodes[add].source.operatorName == "Add",
      other(nodes[add], than: erfOutput).flatMap(scalar) == 1,
      let sum = single(nodes[add]), uses[sum] == 1,
      let product = soleReader(of: sum), nodes[product].source.operatorName == "Mul",
      other(nodes[product], than: sum) == x,
      let half = single(nodes[product]), uses[half] == 1,
      let last = soleReader(of: half), nodes[last].source.operatorName == "Mul",
      other(nodes[last], than: half).flatMap(scalar) == 0.5, single(nodes[last]) != nil
    else { return nil }
    return GELUPattern(removed: [division, index, add, product], last: last, input: x)
  }

  /// `x` when the node is `Div(x, sqrt(2))` or `Mul(x, 1 / sqrt(2))` (either order).
  private func scaledInput(_ node: Node) -> String? {
    guard node.inputs.count == 2 else { return nil }
    switch node.source.operatorName {
    case "Div":
      guard let divisor = scalar(node.inputs[1]), abs(divisor - Float(2).squareRoot()) < 1e-5 else {
        return nil
      }
      return node.inputs[0]
    case "Mul":
      for (x, factor) in [(node.inputs[0], node.inputs[1]), (node.inputs[1], node.inputs[0])] {
        if let value = scalar(factor), abs(value - Float(0.5).squareRoot()) < 1e-5 { return x }
      }
      return nil
    default:
      return nil
    }
  }

  /// The one output of a node with one output.
  private func single(_ node: Node) -> String? {
    node.outputs.count == 1 ? node.outputs[0] : nil
  }

  /// The other input of a two-input node, given one of them.
  private func other(_ node: Node, than name: String) -> String? {
    guard node.inputs.count == 2 else { return nil }
    if node.inputs[0] == name { return node.inputs[1] }
    return node.inputs[1] == name ? node.inputs[0] : nil
  }

  /// The value of a one-element float constant.
  private func scalar(_ name: String) -> Float? {
    guard let tensor = floatConstant(name), tensor.count == 1 else { return nil }
    return tensor.scalars[0]
  }

  /// The index of the node that computes `name`.
  func producer(of name: String) -> Int? {
    nodes.firstIndex { $0.outputs.contains(name) }
  }

  /// The index of the only node that reads `name`, or `nil` for none or several.
  private func soleReader(of name: String) -> Int? {
    let readers = nodes.indices.filter { nodes[$0].inputs.contains(name) }
    return readers.count == 1 ? readers[0] : nil
  }
}
