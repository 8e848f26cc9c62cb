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
    nodes[index].inputs.append(bias)
    nodes[index].source.inputs = nodes[index].inputs
    nodes[index].outputs = sum.outputs
    nodes[index].source.outputs = sum.outputs
    nodes.remove(at: add)
    return true
  }
}

extension ImportedGraph {
  /// Folds a per-channel scale after a linear layer in channels-last order, `Mul(Transpose(
  /// MatMul(x, W) + b, [0, 3, 1, 2]), gamma)` with `gamma` of shape `[C, 1, 1]` or
  /// `[1, C, 1, 1]` (ConvNeXt's layer scale), into the layer's weights and bias: the Mul goes.
  ///
  /// - Returns: `false`, changing nothing, when the node at `index` is not such a product or
  ///   an intermediate value has another reader.
  mutating func foldChannelScale(at index: Int, uses: [String: Int]) throws(NeuralCoreError)
    -> Bool
  {
    let scale = nodes[index]
    guard scale.inputs.count == 2, scale.outputs.count == 1 else { return false }
    for (image, factors) in [(0, 1), (1, 0)] {
      let name = scale.inputs[image]
      guard uses[name] == 1, let gamma = floatConstant(scale.inputs[factors]),
        gamma.rank >= 3, gamma.shape.dropFirst(gamma.rank - 2).allSatisfy({ $0 == 1 }),
        gamma.shape.dropLast(3).allSatisfy({ $0 == 1 }),
        let transpose = producer(of: name),
        nodes[transpose].source.operatorName == "Transpose",
        try nodes[transpose].attributes.ints("perm") == [0, 3, 1, 2],
        let linear = nodes[transpose].inputs.first, uses[linear] == 1,
        let product = producer(of: linear), nodes[product].source.operatorName == "MatMul",
        nodes[product].inputs.count >= 2,
        foldedDequantizations[nodes[product].inputs[1]] == nil,
        let weights = floatConstant(nodes[product].inputs[1]), weights.rank == 2,
        weights.shape[1] == gamma.count
      else { continue }
      let columns = gamma.count
      var inputs = nodes[product].inputs
      let bias = inputs.count > 2 ? floatConstant(inputs[2]) : nil
      guard inputs.count == 2 || bias?.count == columns else { continue }
      let scaled = weights.scalars.indices.map { weights.scalars[$0] * gamma.scalars[$0 % columns] }
      inputs[1] = scale.source.name + "::weight"
      constants[inputs[1]] = .float(try Tensor(shape: weights.shape, scalars: scaled))
      if let bias {
        inputs[2] = scale.source.name + "::bias"
        constants[inputs[2]] = .float(
          try Tensor(shape: bias.shape, scalars: zip(bias.scalars, gamma.scalars).map(*)))
      }
      nodes[product].inputs = inputs
      nodes[product].source.inputs = inputs
      nodes[transpose].outputs = scale.outputs
      nodes[transpose].source.outputs = scale.outputs
      nodes.remove(at: index)
      return true
    }
    return false
  }
}

extension ImportedGraph {
  /// Folds `MatMul(Mul(x, s), y)` (either operand, either order of the Mul) with a one-element
  /// constant `s` into the product's scale, the internal attribute `alpha` that the planner
  /// passes to the GEMM (as ONNX Runtime's FusedMatMul does with Swin's and ViT's query scaling):
  /// the Mul's pass over memory goes.
  ///
  /// - Returns: `false`, changing nothing, when neither operand is such a product read only here.
  mutating func foldInputScale(at index: Int, uses: [String: Int]) -> Bool {
    let product = nodes[index]
    guard product.inputs.count >= 2 else { return false }
    for position in 0..<2 {
      let name = product.inputs[position]
      guard uses[name] == 1, let scale = producer(of: name),
        nodes[scale].source.operatorName == "Mul", nodes[scale].source.domain.isEmpty,
        nodes[scale].inputs.count == 2, nodes[scale].outputs.count == 1
      else { continue }
      let factors = nodes[scale].inputs
      for (x, s) in [(factors[0], factors[1]), (factors[1], factors[0])] {
        guard let tensor = floatConstant(s), tensor.count == 1, tensor.rank <= 1,
          floatConstant(x) == nil
        else { continue }
        let alpha = nodes[index].source.attributes.first { $0.name == "alpha" }
        var value = tensor.scalars[0]
        if case .float(let previous)? = alpha?.value { value *= previous }
        nodes[index].source.attributes.removeAll { $0.name == "alpha" }
        nodes[index].source.attributes.append(Graph.Attribute(name: "alpha", value: .float(value)))
        nodes[index].inputs[position] = x
        nodes[index].source.inputs[position] = x
        nodes.remove(at: scale)
        return true
      }
    }
    return false
  }
}
