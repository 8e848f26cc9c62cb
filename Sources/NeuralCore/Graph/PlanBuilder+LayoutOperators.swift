extension PlanBuilder {
  /// Plans `Split`: pieces along an axis, sized by the `split` input (opset 13) or attribute,
  /// or equal (the last smaller with opset 18's `num_outputs`).
  mutating func planSplit(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    guard !shape.isEmpty else { throw attributes.error(.shapeMismatch, "Split of a scalar") }
    let axis = try PlanBuilder.axis(try attributes.int("axis", default: 0), rank: shape.count, node)
    let outputs = node.outputs.count
    guard outputs > 0 else { throw attributes.error(.invalidGraph, "Split without outputs") }
    let length = shape[axis]
    var sizes = try integers(node, 1)
    if sizes == nil { sizes = try attributes.ints("split") }
    if sizes == nil {
      let pieces = try attributes.int("num_outputs", default: outputs)
      guard pieces == outputs else {
        throw attributes.error(.invalidGraph, "num_outputs \(pieces) for \(outputs) outputs")
      }
      let size = (length + pieces - 1) / pieces
      sizes = (0..<pieces).map { Swift.max(0, Swift.min(size, length - $0 * size)) }
    }
    guard let sizes, sizes.count == outputs, sizes.allSatisfy({ $0 >= 0 }),
      sizes.reduce(0, +) == length
    else {
      throw attributes.error(
        .shapeMismatch, "split \(sizes ?? []) does not cut \(length) into \(outputs) pieces")
    }
    let outputShapes = sizes.map { size -> [Int] in
      var piece = shape
      piece[axis] = size
      return piece
    }
    let outer = shape[..<axis].reduce(1, *)
    let inner = shape[(axis + 1)...].reduce(1, *)
    try addStep(node, inputs: [input], outputShapes: outputShapes) { inputs, outputs, _ in
      var offset = 0
      for (index, size) in sizes.enumerated() {
        Layout.copyBlocks(
          from: inputs[0] + offset * inner, stride: length * inner, count: outer,
          length: size * inner, to: outputs[index])
        offset += size
      }
    }
  }

  /// Plans `Expand`: the input broadcast with a constant shape (NumPy rules, both ways).
  mutating func planExpand(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    guard let requested = try integers(node, 1) else {
      throw node.attributes.error(.invalidGraph, "shape input is required")
    }
    let input = try requiredValue(node, 0)
    guard let shape = Elementwise.broadcastShape(input.shape, requested) else {
      throw node.attributes.error(
        .shapeMismatch, "\(input.shape) does not broadcast to \(requested)")
    }
    if case .constant(.integer(let values, let inputShape)) = input {
      // Adding zeros of the requested shape broadcasts the constant both ways.
      let zeros = [Int64](repeating: 0, count: Tensor.elementCount(of: requested) ?? 0)
      guard
        let result = IntegerArithmetic.apply(
          .add, a: values, aShape: inputShape, b: zeros, bShape: requested)
      else {
        throw node.attributes.error(.limitExceeded, "expanded constant \(shape) is too large")
      }
      try bind(node, .constant(.integer(result.values, shape: result.shape)))
      return
    }
    let (operand, inputShape) = try floatOperand(node, 0)
    try addStepAgainstZero(
      node, .add, input: operand, inputShape: inputShape, outputShape: shape)
  }

  /// Plans `Range` of constant scalars: integer or float, folded while planning.
  mutating func planRange(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let values = try (0..<3).map { position throws(NeuralCoreError) in
      try requiredValue(node, position)
    }
    if case .constant(.integer(let start, _)) = values[0],
      case .constant(.integer(let limit, _)) = values[1],
      case .constant(.integer(let delta, _)) = values[2],
      start.count == 1, limit.count == 1, delta.count == 1
    {
      let count = try rangeCount(
        node, Double(start[0]), Double(limit[0]), Double(delta[0]))
      let result = (0..<count).map { start[0] &+ Int64($0) &* delta[0] }
      try bind(node, .constant(.integer(result, shape: [count])))
      return
    }
    var scalars: [Float] = []
    for value in values {
      guard case .constant(.float(let tensor)) = value, tensor.count == 1 else {
        throw node.attributes.error(.unsupported, "Range needs constant scalar inputs")
      }
      scalars.append(tensor.scalars[0])
    }
    let count = try rangeCount(node, Double(scalars[0]), Double(scalars[1]), Double(scalars[2]))
    let result = (0..<count).map { scalars[0] + Float($0) * scalars[2] }
    try bind(node, .constant(.float(try Tensor(shape: [count], scalars: result))))
  }

  /// `max(ceil((limit - start) / delta), 0)`, refused past the plan's element limit.
  private func rangeCount(
    _ node: ImportedGraph.Node, _ start: Double, _ limit: Double, _ delta: Double
  ) throws(NeuralCoreError) -> Int {
    guard delta != 0, start.isFinite, limit.isFinite, delta.isFinite else {
      throw node.attributes.error(.invalidArgument, "Range with delta 0 or a non-finite bound")
    }
    let count = Swift.max(((limit - start) / delta).rounded(.up), 0)
    guard count <= Double(PlanBuilder.maximumElements) else {
      throw node.attributes.error(.limitExceeded, "Range of \(count) elements")
    }
    return Int(count)
  }
}

extension PlanBuilder {
  /// Plans `GatherElements` with constant indices.
  ///
  /// Each output element reads the input at its own coordinates with the one along `axis`
  /// replaced by its index. The indices are checked and turned into source offsets while
  /// planning.
  mutating func planGatherElements(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    guard case .constant(.integer(let indices, let indexShape)) = try requiredValue(node, 1)
    else { throw attributes.error(.unsupported, "indices computed while the network runs") }
    let axis = try PlanBuilder.axis(try attributes.int("axis", default: 0), rank: shape.count, node)
    guard indexShape.count == shape.count, Tensor.elementCount(of: indexShape) == indices.count,
      zip(indexShape, shape).enumerated().allSatisfy({
        $0.offset == axis || $0.element.0 <= $0.element.1
      })
    else {
      throw attributes.error(.shapeMismatch, "indices \(indexShape) for data \(shape)")
    }
    let inputStrides = Layout.strides(of: shape)
    let indexStrides = Layout.strides(of: indexShape)
    var sources: [Int] = []
    sources.reserveCapacity(indices.count)
    for (flat, index) in indices.enumerated() {
      let length = Int64(shape[axis])
      guard index >= -length && index < length else {
        throw attributes.error(.invalidArgument, "index \(index) is outside 0..<\(length)")
      }
      var offset = 0
      for dimension in shape.indices {
        let coordinate = flat / indexStrides[dimension] % indexShape[dimension]
        let position = dimension == axis ? Int(index < 0 ? index + length : index) : coordinate
        offset += position * inputStrides[dimension]
      }
      sources.append(offset)
    }
    let table = sources
    try addStep(node, inputs: [input], outputShapes: [indexShape]) { inputs, outputs, _ in
      for (index, source) in table.enumerated() { outputs[0][index] = inputs[0][source] }
    }
  }

  /// Plans `DepthToSpace` (`toSpace`, modes DCR and CRD) or `SpaceToDepth` as a transpose of a
  /// 6-D view.
  mutating func planDepthSpace(
    _ node: ImportedGraph.Node, toSpace: Bool
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let block = try attributes.int("blocksize") ?? 0
    guard shape.count == 4, block > 0 else {
      throw attributes.error(.shapeMismatch, "input \(shape) with blocksize \(block)")
    }
    let (n, c, h, w) = (shape[0], shape[1], shape[2], shape[3])
    let mode = try attributes.string("mode", default: "DCR")
    let view: [Int]
    let permutation: [Int]
    let outputShape: [Int]
    if toSpace {
      guard c % (block * block) == 0 else {
        throw attributes.error(.shapeMismatch, "\(c) channels for blocksize \(block)")
      }
      let depth = c / (block * block)
      outputShape = [n, depth, h * block, w * block]
      switch mode {
      case "DCR": (view, permutation) = ([n, block, block, depth, h, w], [0, 3, 4, 1, 5, 2])
      case "CRD": (view, permutation) = ([n, depth, block, block, h, w], [0, 1, 4, 2, 5, 3])
      default: throw attributes.error(.unsupported, "mode '\(mode)' is not supported")
      }
    } else {
      guard h % block == 0, w % block == 0 else {
        throw attributes.error(.shapeMismatch, "\(h)x\(w) for blocksize \(block)")
      }
      outputShape = [n, c * block * block, h / block, w / block]
      view = [n, c, h / block, block, w / block, block]
      switch mode {
      case "DCR": permutation = [0, 3, 5, 1, 2, 4]
      case "CRD": permutation = [0, 1, 3, 5, 2, 4]
      default: throw attributes.error(.unsupported, "mode '\(mode)' is not supported")
      }
    }
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, _ in
      Layout.transpose(input: inputs[0], shape: view, permutation: permutation, output: outputs[0])
    }
  }
}
