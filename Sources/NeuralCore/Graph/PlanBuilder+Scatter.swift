extension PlanBuilder {
  /// Plans `ScatterND` (opsets 11 to 18): the data with the slices named by constant indices
  /// replaced by the updates.
  ///
  /// With `reduction` (add, mul, max, min) the updates are combined with the slices instead,
  /// in index order. Raw Swin exports build their shifted-window mask this way.
  mutating func planScatterND(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (data, shape) = try floatOperand(node, 0)
    guard case .constant(.integer(let indices, let indexShape)) = try requiredValue(node, 1),
      let depth = indexShape.last, depth >= 1, depth <= shape.count
    else {
      throw attributes.error(
        .unsupported, "indices must be a constant integer tensor whose last axis fits the data")
    }
    let (updates, updateShape) = try floatOperand(node, 2)
    let sliceShape = Array(shape[depth...])
    guard updateShape == Array(indexShape.dropLast()) + sliceShape else {
      throw attributes.error(
        .shapeMismatch, "updates \(updateShape) for indices \(indexShape) into data \(shape)")
    }
    let combine: Elementwise.Operation?
    switch try attributes.string("reduction", default: "none") {
    case "none": combine = nil
    case "add": combine = .add
    case "mul": combine = .multiply
    case "max": combine = .maximum
    case "min": combine = .minimum
    case let other: throw attributes.error(.unsupported, "reduction '\(other)' is not supported")
    }
    let sliceSize = sliceShape.reduce(1, *)
    let strides = Layout.strides(of: shape)
    var offsets: [Int] = []
    for start in stride(from: 0, to: indices.count, by: depth) {
      var offset = 0
      for axis in 0..<depth {
        let length = Int64(shape[axis])
        let index = indices[start + axis]
        guard index >= -length && index < length else {
          throw attributes.error(.invalidArgument, "index \(index) is outside 0..<\(length)")
        }
        offset += Int(index < 0 ? index + length : index) * strides[axis]
      }
      offsets.append(offset)
    }
    let table = offsets
    let count = shape.reduce(1, *)
    let kernels = graph.kernels.native
    let combineCode = combine?.native
    try addStep(node, inputs: [data, updates], outputShapes: [shape]) { inputs, outputs, _ in
      outputs[0].update(from: inputs[0], count: count)
      for (slice, offset) in table.enumerated() {
        let source = inputs[1] + slice * sliceSize
        let target = outputs[0] + offset
        if let combineCode {
          kernels.binary(combineCode, target, 1, source, 1, target, Int64(sliceSize))
        } else {
          target.update(from: source, count: sliceSize)
        }
      }
    }
  }
}
