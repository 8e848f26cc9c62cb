extension PlanBuilder {
  /// Plans `ConstantOfShape`: a constant of the shape its (constant) input gives, filled with
  /// the `value` attribute (float 0 by default).
  mutating func planConstantOfShape(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    guard let shape = try integers(node, 0), shape.allSatisfy({ $0 >= 0 }) else {
      throw attributes.error(.invalidGraph, "the shape input must be constant and non-negative")
    }
    guard let count = Tensor.elementCount(of: shape), count <= PlanBuilder.maximumElements else {
      throw attributes.error(.limitExceeded, "constant of shape \(shape) is too large")
    }
    guard let value = try attributes.tensor("value") else {
      // No value attribute: float zeros.
      let zeros = [Float](repeating: 0, count: count)
      try bind(node, .constant(.float(try Tensor(shape: shape, scalars: zeros))))
      return
    }
    switch value {
    case .float(let tensor):
      guard tensor.count == 1 else {
        throw attributes.error(.invalidGraph, "value is not one element")
      }
      let values = [Float](repeating: tensor.scalars[0], count: count)
      try bind(node, .constant(.float(try Tensor(shape: shape, scalars: values))))
    case .integer(let values, _):
      guard values.count == 1 else {
        throw attributes.error(.invalidGraph, "value is not one element")
      }
      try bind(node, .constant(.integer([Int64](repeating: values[0], count: count), shape: shape)))
    }
  }

  /// Plans a comparison or logical operator (`Equal`, `Less`, `Greater`, `LessOrEqual`,
  /// `GreaterOrEqual`, `And`, `Or`, `Xor`).
  ///
  /// Of integer constants it is folded while planning. Otherwise it runs on float data, and its
  /// boolean result is a float tensor of 1 and 0, which `Where` and `Cast` read as such.
  mutating func planComparison(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation
  ) throws(NeuralCoreError) {
    let kernels = graph.kernels.native
    try requireSingleOutput(node)
    let attributes = node.attributes
    if try foldIntegerBinary(node, operation) { return }
    let (a, aShape) = try floatOperand(node, 0, convertingIntegers: true)
    let (b, bShape) = try floatOperand(node, 1, convertingIntegers: true)
    guard let shape = Elementwise.broadcastShape(aShape, bShape) else {
      throw attributes.error(.shapeMismatch, "shapes \(aShape) and \(bShape) do not broadcast")
    }
    try addStep(node, inputs: [a, b], outputShapes: [shape]) { inputs, outputs, _ in
      Elementwise.run(
        operation, a: inputs[0], aShape: aShape, b: inputs[1], bShape: bShape, output: outputs[0],
        outputShape: shape, kernels: kernels)
    }
  }

  /// Plans `Not`: folded for an integer or boolean constant; at run time 1 where the float
  /// input is 0, else 0 (booleans are tensors of 1 and 0).
  mutating func planNot(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    if case .constant(.integer(let values, let shape)) = try requiredValue(node, 0) {
      try bind(node, .constant(.integer(values.map { $0 == 0 ? 1 : 0 }, shape: shape)))
      return
    }
    let (input, shape) = try floatOperand(node, 0)
    try addStepAgainstZero(node, .equal, input: input, inputShape: shape, outputShape: shape)
  }

  /// Plans `Where`: folded when the condition and both branches are integer constants, else a
  /// step that picks each element from the first or second float branch by the condition
  /// (a constant, or a float tensor of 1 and 0 from a comparison).
  mutating func planWhere(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let values = (
      try requiredValue(node, 0), try requiredValue(node, 1), try requiredValue(node, 2)
    )
    guard let pair = Elementwise.broadcastShape(values.1.shape, values.2.shape),
      let shape = Elementwise.broadcastShape(values.0.shape, pair),
      let count = Tensor.elementCount(of: shape), count <= PlanBuilder.maximumIndexedElements
    else {
      throw attributes.error(
        .shapeMismatch,
        "condition \(values.0.shape) and branches \(values.1.shape), \(values.2.shape) "
          + "do not broadcast")
    }
    let pick = Elementwise.broadcastOffsets(values.0.shape, to: shape)
    let first = Elementwise.broadcastOffsets(values.1.shape, to: shape)
    let second = Elementwise.broadcastOffsets(values.2.shape, to: shape)
    if case .constant(.integer(let condition, _)) = values.0,
      case .constant(.integer(let x, _)) = values.1, case .constant(.integer(let y, _)) = values.2
    {
      let folded = (0..<count).map { condition[pick[$0]] != 0 ? x[first[$0]] : y[second[$0]] }
      try bind(node, .constant(.integer(folded, shape: shape)))
      return
    }
    let (condition, _) = try floatOperand(node, 0, convertingIntegers: true)
    let (x, _) = try floatOperand(node, 1, convertingIntegers: true)
    let (y, _) = try floatOperand(node, 2, convertingIntegers: true)
    try addStep(node, inputs: [condition, x, y], outputShapes: [shape]) { inputs, outputs, _ in
      for index in 0..<count {
        outputs[0][index] =
          inputs[0][pick[index]] != 0 ? inputs[1][first[index]] : inputs[2][second[index]]
      }
    }
  }

  /// Plans `Tile` with constant repeats: a gather for run-time data, folded for constants.
  mutating func planTile(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let shape = try requiredValue(node, 0).shape
    guard let repeats = try integers(node, 1), repeats.count == shape.count,
      repeats.allSatisfy({ $0 >= 0 })
    else {
      throw node.attributes.error(
        .invalidGraph, "repeats must be \(shape.count) non-negative constants")
    }
    let outputShape = zip(shape, repeats).map { $0.multipliedReportingOverflow(by: $1) }
    guard outputShape.allSatisfy({ !$0.overflow }),
      let count = Tensor.elementCount(of: outputShape.map(\.partialValue)),
      count <= PlanBuilder.maximumIndexedElements
    else {
      throw node.attributes.error(.limitExceeded, "tiling \(shape) by \(repeats) is too large")
    }
    let selections = shape.indices.map { axis in
      (0..<repeats[axis]).flatMap { _ in Array(0..<shape[axis]) }
    }
    try select(node, selections: selections, outputShape: selections.map(\.count))
  }
}
