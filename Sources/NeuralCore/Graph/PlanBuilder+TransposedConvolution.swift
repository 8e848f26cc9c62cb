extension PlanBuilder {
  /// Plans `ConvTranspose` over any number of spatial axes, with groups, dilations,
  /// `output_padding`, explicit pads, `auto_pad` and `output_shape` as ONNX's reference resolves
  /// them: explicit pads win; otherwise `SAME_UPPER`/`SAME_LOWER` split the padding that
  /// `output_shape` (default: input times stride) needs.
  mutating func planTransposedConvolution(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, inputShape) = try floatOperand(node, 0)
    let (weights, weightShape) = try floatOperand(node, 1)
    let rank = inputShape.count - 2
    guard rank >= 1, weightShape.count == inputShape.count else {
      throw attributes.error(.shapeMismatch, "weights \(weightShape) for input \(inputShape)")
    }
    let groups = try attributes.int("group", default: 1)
    guard groups > 0, inputShape[1] % groups == 0, weightShape[0] == inputShape[1] else {
      throw attributes.error(
        .shapeMismatch, "input \(inputShape), weights \(weightShape) and group \(groups) disagree")
    }
    let kernel = Array(weightShape[2...])
    if let declared = try attributes.ints("kernel_shape"), declared != kernel {
      throw attributes.error(.shapeMismatch, "kernel_shape \(declared) differs from weights")
    }
    let spatial = Array(inputShape[2...])
    let geometry = try transposedGeometry(node, spatial: spatial, kernel: kernel)
    let groupOutputs = weightShape[1]
    let outputShape = [inputShape[0], groups * groupOutputs] + geometry.output
    var operands = [input, weights]
    if try value(node, 2) != nil {
      let (bias, biasShape) = try floatOperand(node, 2)
      guard Tensor.elementCount(of: biasShape) == groups * groupOutputs else {
        throw attributes.error(.shapeMismatch, "bias \(biasShape) for \(outputShape[1]) channels")
      }
      operands.append(bias)
    }
    let taps = kernel.reduce(1, *)
    let inputPositions = spatial.reduce(1, *)
    guard
      taps.multipliedReportingOverflow(by: inputPositions).partialValue
        <= PlanBuilder.maximumIndexedElements, taps > 0,
      (Tensor.elementCount(of: outputShape) ?? .max) <= PlanBuilder.maximumElements
    else {
      throw attributes.error(.limitExceeded, "ConvTranspose of \(inputShape) is too large")
    }
    let convolution = TransposedConvolution(
      inputSpatial: spatial, outputSpatial: geometry.output, kernel: kernel,
      strides: geometry.strides, dilations: geometry.dilations, padsBegin: geometry.padsBegin)
    let (batch, groupInputs) = (inputShape[0], inputShape[1] / groups)
    try addStep(node, inputs: operands, outputShapes: [outputShape]) { inputs, outputs, _ in
      convolution.run(
        input: inputs[0], weights: inputs[1], bias: inputs.count > 2 ? inputs[2] : nil,
        batch: batch, groups: groups, groupInputs: groupInputs, groupOutputs: groupOutputs,
        output: outputs[0])
    }
  }

  /// Strides, dilations, leading pads and output size of each spatial axis.
  private func transposedGeometry(
    _ node: ImportedGraph.Node, spatial: [Int], kernel: [Int]
  ) throws(NeuralCoreError) -> (
    strides: [Int], dilations: [Int], padsBegin: [Int], output: [Int]
  ) {
    let attributes = node.attributes
    let rank = spatial.count
    let ones = [Int](repeating: 1, count: rank)
    let strides = try attributes.ints("strides") ?? ones
    let dilations = try attributes.ints("dilations") ?? ones
    let outputPadding = try attributes.ints("output_padding") ?? [Int](repeating: 0, count: rank)
    var requested = try attributes.ints("output_shape")
    if let shape = requested, shape.count > rank { requested = Array(shape.suffix(rank)) }
    guard strides.count == rank, dilations.count == rank, outputPadding.count == rank,
      strides.allSatisfy({ $0 > 0 }), dilations.allSatisfy({ $0 > 0 }),
      kernel.allSatisfy({ $0 > 0 }), requested.map({ $0.count == rank }) ?? true
    else {
      throw attributes.error(
        .invalidGraph, "invalid strides, dilations, output_padding or output_shape")
    }
    // The extent the strides and kernel reach before padding, per axis.
    var reach: [Int] = []
    for axis in 0..<rank {
      let strided: Int = strides[axis] * (spatial[axis] - 1) + outputPadding[axis]
      reach.append(strided + (kernel[axis] - 1) * dilations[axis] + 1)
    }
    let autoPad = try attributes.string("auto_pad", default: "NOTSET")
    if let pads = try attributes.ints("pads") {
      guard pads.count == 2 * rank, pads.allSatisfy({ $0 >= 0 }) else {
        throw attributes.error(.invalidGraph, "pads \(pads) for \(rank) spatial axes")
      }
      var output: [Int] = []
      for axis in 0..<rank { output.append(reach[axis] - pads[axis] - pads[axis + rank]) }
      return try checked(node, strides, dilations, Array(pads[..<rank]), requested ?? output)
    }
    switch autoPad {
    case "NOTSET", "VALID":
      return try checked(
        node, strides, dilations, [Int](repeating: 0, count: rank), requested ?? reach)
    case "SAME_UPPER", "SAME_LOWER":
      let output = requested ?? (0..<rank).map { spatial[$0] * strides[$0] }
      let begins = (0..<rank).map { axis in
        let total = reach[axis] - output[axis]
        let half = total >= 0 ? total / 2 : -((-total + 1) / 2)
        return autoPad == "SAME_UPPER" ? half : total - half
      }
      return try checked(node, strides, dilations, begins, output)
    default:
      throw attributes.error(.unsupported, "auto_pad '\(autoPad)' is not supported")
    }
  }

  private func checked(
    _ node: ImportedGraph.Node, _ strides: [Int], _ dilations: [Int], _ begins: [Int],
    _ output: [Int]
  ) throws(NeuralCoreError) -> (strides: [Int], dilations: [Int], padsBegin: [Int], output: [Int]) {
    guard output.allSatisfy({ $0 > 0 && $0 <= PlanBuilder.maximumElements }) else {
      throw node.attributes.error(.shapeMismatch, "ConvTranspose output \(output) is empty")
    }
    return (strides, dilations, begins, output)
  }

  /// Plans `LpNormalization`: each vector along `axis` divided by its L1 or L2 norm (a zero
  /// vector stays zero, as in ONNX's tests and ONNX Runtime).
  mutating func planLpNormalization(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let axis = try PlanBuilder.axis(
      try attributes.int("axis", default: -1), rank: shape.count, node)
    let order = try attributes.int("p", default: 2)
    guard order == 1 || order == 2 else {
      throw attributes.error(.unsupported, "p \(order) is not supported (1 or 2)")
    }
    let outer = shape[..<axis].reduce(1, *)
    let length = shape.isEmpty ? 1 : shape[axis]
    let inner = shape[(axis + 1)...].reduce(1, *)
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, _ in
      for block in 0..<outer {
        for column in 0..<inner {
          let base = block * length * inner + column
          var norm: Float = 0
          for index in 0..<length {
            let value = inputs[0][base + index * inner]
            norm += order == 1 ? abs(value) : value * value
          }
          if order == 2 { norm = norm.squareRoot() }
          let factor = norm == 0 ? 0 : 1 / norm
          for index in 0..<length {
            outputs[0][base + index * inner] = inputs[0][base + index * inner] * factor
          }
        }
      }
    }
  }
}
