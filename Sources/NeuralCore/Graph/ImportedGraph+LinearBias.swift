extension ImportedGraph {
  /// Folds `Add(MatMul(x, W), b)` with constant 2-D weights `W` (`k × n`) and a constant bias
  /// `b` of shape `[n]` (a linear layer as PyTorch exports it) into the MatMul node, as its
  /// third input: the product adds the bias while its output tile is in registers instead of
  /// in a second pass over memory, as ONNX Runtime's Gemm does.
  ///
  /// - Returns: `false`, changing nothing, when the node at `index` is not such a product, its
  ///   weights come from an int8 model's dequantization, or its output has another reader.
  mutating func foldLinearBias(at index: Int, uses: [String: Int]) -> Bool {
    let product = nodes[index]
    guard product.inputs.count == 2, product.outputs.count == 1,
      foldedDequantizations[product.inputs[1]] == nil,
      let weights = floatConstant(product.inputs[1]), weights.rank == 2,
      uses[product.outputs[0]] == 1,
      let add = nodes.indices.first(where: { nodes[$0].inputs.contains(product.outputs[0]) }),
      nodes[add].source.operatorName == "Add", nodes[add].inputs.count == 2,
      nodes[add].outputs.count == 1
    else { return false }
    let sum = nodes[add]
    let bias = sum.inputs[0] == product.outputs[0] ? sum.inputs[1] : sum.inputs[0]
    guard bias != product.outputs[0], let values = floatConstant(bias),
      values.shape == [weights.shape[1]]
    else { return false }
    let source = Graph.Node(
      name: product.source.name, operatorName: "MatMul",
      inputs: [product.inputs[0], product.inputs[1], bias], outputs: sum.outputs)
    nodes[index].source = source
    nodes[index].inputs = source.inputs
    nodes[index].outputs = source.outputs
    nodes.remove(at: add)
    return true
  }
}
