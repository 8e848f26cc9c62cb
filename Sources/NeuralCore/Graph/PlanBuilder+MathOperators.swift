import Foundation

extension PlanBuilder {
  /// Plans an element-wise math function of one float tensor; `Neg`, `Abs` and `Sign` of an
  /// integer constant are folded while planning.
  mutating func planUnary(
    _ node: ImportedGraph.Node, _ function: UnaryFunction
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    if case .constant(.integer(let values, let shape)) = try requiredValue(node, 0) {
      let folded: [Int64]?
      switch function {
      case .negate: folded = values.contains(.min) ? nil : values.map { -$0 }
      case .abs: folded = values.contains(.min) ? nil : values.map { Swift.abs($0) }
      case .sign: folded = values.map { $0.signum() }
      default: folded = nil
      }
      if let folded {
        try bind(node, .constant(.integer(folded, shape: shape)))
        return
      }
    }
    let (input, shape) = try floatOperand(node, 0)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, threads in
      function.apply(
        inputs[0], count: count, into: outputs[0], kernels: kernels, threads: threads)
    }
  }

  /// Plans a `Reduce*` operator: axes from the attribute or (ReduceSum from opset 13, all from
  /// opset 18) a constant integer input, `keepdims` and `noop_with_empty_axes`.
  mutating func planReduction(
    _ node: ImportedGraph.Node, _ reduction: Reduction
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    var listed = try attributes.ints("axes")
    if let axesInput = try value(node, 1) {
      guard case .constant(.integer(let values, _)) = axesInput else {
        throw attributes.error(.unsupported, "axes computed while the network runs")
      }
      listed = values.map { Int(clamping: $0) }
    }
    let keepDimensions = try attributes.int("keepdims", default: 1) != 0
    if listed?.isEmpty ?? true, try attributes.int("noop_with_empty_axes", default: 0) != 0 {
      try bind(node, try requiredValue(node, 0))
      return
    }
    var axes = Set(shape.indices)
    if let listed, !listed.isEmpty {
      axes = []
      for axis in listed {
        guard axes.insert(try PlanBuilder.axis(axis, rank: shape.count, node)).inserted else {
          throw attributes.error(.invalidGraph, "axis \(axis) is listed twice")
        }
      }
    }
    let outputShape = Reduction.outputShape(shape, axes: axes, keepDimensions: keepDimensions)
    if case .constant(.integer(let values, _)) = try requiredValue(node, 0) {
      // Integer (or boolean) constants are reduced while planning, in floats, and rounded back.
      var result = [Float](repeating: 0, count: Tensor.elementCount(of: outputShape) ?? 0)
      let floats = values.map { Float($0) }
      floats.withUnsafeBufferPointer { source in
        result.withUnsafeMutableBufferPointer { target in
          // Safety: source holds the input's elements and target one per output element.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          reduction.run(from, shape: shape, axes: axes, into: to)
        }
      }
      let integers = result.map { Int64(exactly: $0.rounded()) ?? 0 }
      try bind(node, .constant(.integer(integers, shape: outputShape)))
      return
    }
    let reduced = axes
    let (input, _) = try floatOperand(node, 0)
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, _ in
      reduction.run(inputs[0], shape: shape, axes: reduced, into: outputs[0])
    }
  }

  /// Plans `Max`, `Min`, `Sum` or `Mean` of one or more tensors, broadcast together:
  /// `operation` (`maximum`, `minimum` or `add`) folds them, and `isMean` divides by their count.
  mutating func planVariadic(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation, isMean: Bool = false
  ) throws(NeuralCoreError) {
    let kernels = graph.kernels.native
    try requireSingleOutput(node)
    if !isMean, try foldIntegerVariadic(node, operation) { return }
    var operands: [ExecutionPlan.Operand] = []
    var shapes: [[Int]] = []
    for position in node.inputs.indices where !node.inputs[position].isEmpty {
      let (operand, shape) = try floatOperand(node, position)
      operands.append(operand)
      shapes.append(shape)
    }
    guard var shape = shapes.first else {
      throw node.attributes.error(.missingValue, "\(node.source.operatorName) needs an input")
    }
    for other in shapes.dropFirst() {
      guard let combined = Elementwise.broadcastShape(shape, other) else {
        throw node.attributes.error(.shapeMismatch, "shapes \(shapes) do not broadcast")
      }
      shape = combined
    }
    let (outputShape, inputShapes) = (shape, shapes)
    let count = Tensor.elementCount(of: shape) ?? 0
    try addStep(node, inputs: operands, outputShapes: [shape]) { inputs, outputs, _ in
      // The first input broadcast to the output (combined with the operation's identity), then
      // each further input folded in place: the accumulator has the output's shape, so every
      // element is read before it is written, at the same index.
      var identity: Float =
        operation == .add ? 0 : (operation == .maximum ? -.infinity : .infinity)
      Elementwise.run(
        operation, a: inputs[0], aShape: inputShapes[0], b: &identity, bShape: [],
        output: outputs[0], outputShape: outputShape, kernels: kernels)
      for index in inputs.indices.dropFirst() {
        Elementwise.run(
          operation, a: outputs[0], aShape: outputShape, b: inputs[index],
          bShape: inputShapes[index], output: outputs[0], outputShape: outputShape, kernels: kernels
        )
      }
      if isMean {
        let scale = 1 / Float(inputs.count)
        for element in 0..<count { outputs[0][element] *= scale }
      }
    }
  }

  /// Folds `Max`, `Min` or `Sum` of integer constants (shape arithmetic in expanded functions).
  ///
  /// - Returns: `false`, having bound nothing, when an input is not an integer constant.
  private mutating func foldIntegerVariadic(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation
  ) throws(NeuralCoreError) -> Bool {
    let present = node.inputs.indices.filter { !node.inputs[$0].isEmpty }
    var constants: [(values: [Int64], shape: [Int])] = []
    for position in present {
      guard case .constant(.integer(let values, let shape)) = try requiredValue(node, position)
      else { return false }
      constants.append((values, shape))
    }
    guard var result = constants.first else { return false }
    for other in constants.dropFirst() {
      guard
        let combined = IntegerArithmetic.apply(
          operation, a: result.values, aShape: result.shape, b: other.values, bShape: other.shape)
      else {
        throw node.attributes.error(
          .shapeMismatch, "integer operands \(constants.map(\.shape)) do not combine")
      }
      result = combined
    }
    try bind(node, .constant(.integer(result.values, shape: result.shape)))
    return true
  }

  /// Plans `GlobalMaxPool`: the maximum of each channel over its spatial axes.
  mutating func planGlobalMaxPool(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let (input, shape) = try floatOperand(node, 0)
    guard shape.count >= 3 else {
      throw node.attributes.error(.shapeMismatch, "input \(shape) has no spatial axes")
    }
    let axes = Set(2..<shape.count)
    let outputShape = Reduction.outputShape(shape, axes: axes, keepDimensions: true)
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, _ in
      Reduction.max.run(inputs[0], shape: shape, axes: axes, into: outputs[0])
    }
  }
}

extension PlanBuilder {
  /// Plans `LayerNormalization` (or `RMSNormalization`, which does not subtract the mean) over
  /// the axes from `axis` on, with its optional `Mean` and `InvStdDev` outputs; `Scale` and `B`
  /// broadcast to the normalized axes.
  mutating func planLayerNormalization(
    _ node: ImportedGraph.Node, centering: Bool
  ) throws(NeuralCoreError) {
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let axis = try PlanBuilder.axis(
      try attributes.int("axis", default: -1), rank: shape.count, node)
    let epsilon = try attributes.float("epsilon", default: 1e-5)
    let tail = Array(shape[axis...])
    let (scale, scaleShape) = try floatOperand(node, 1)
    var operands = [input, scale]
    let bias: [Int]?
    if try value(node, 2) != nil {
      let (operand, shape) = try floatOperand(node, 2)
      operands.append(operand)
      bias = shape
    } else {
      bias = nil
    }
    for parameter in [scaleShape, bias].compactMap({ $0 })
    where Elementwise.broadcastShape(parameter, tail) != tail {
      throw attributes.error(
        .shapeMismatch, "scale or bias \(parameter) does not broadcast to \(tail)")
    }
    let rows = shape[..<axis].reduce(1, *)
    let length = tail.reduce(1, *)
    let statistics = Array(shape[..<axis]) + [Int](repeating: 1, count: shape.count - axis)
    if !centering { try requireSingleOutput(node) }
    let wanted = (1..<3).map { $0 < node.outputs.count && !node.outputs[$0].isEmpty }
    let outputShapes =
      [shape] + (wanted[1] ? [statistics, statistics] : wanted[0] ? [statistics] : [])
    let kernels = graph.kernels
    try addStep(node, inputs: operands, outputShapes: outputShapes) { inputs, outputs, threads in
      // Scale and bias broadcast to one row of the normalized axes.
      var broadcast = [Float](repeating: 0, count: 2 * length)
      broadcast.withUnsafeMutableBufferPointer { buffer in
        // Safety: the buffer holds two rows of `length` floats.
        guard let rowsBase = buffer.baseAddress else { return }
        var zero: Float = 0
        Elementwise.run(
          .add, a: inputs[1], aShape: scaleShape, b: &zero, bShape: [], output: rowsBase,
          outputShape: tail, kernels: kernels.native)
        if let bias {
          Elementwise.run(
            .add, a: inputs[2], aShape: bias, b: &zero, bShape: [],
            output: rowsBase + length, outputShape: tail, kernels: kernels.native)
        }
        LayerNormalization.run(
          inputs[0], rows: rows, length: length, epsilon: epsilon, scale: rowsBase,
          bias: bias == nil ? nil : UnsafePointer(rowsBase + length), output: outputs[0],
          mean: outputs.count > 1 ? outputs[1] : nil,
          inverseDeviation: outputs.count > 2 ? outputs[2] : nil, centering: centering,
          kernels: kernels, threads: threads)
      }
    }
  }

  /// Plans `InstanceNormalization` (each channel of each image normalized over its positions,
  /// then scaled and shifted per channel) and `MeanVarianceNormalization` (over `axes`,
  /// default 0, 2, 3, without scale: `scaled` is `false`).
  mutating func planChannelNormalization(
    _ node: ImportedGraph.Node, scaled: Bool
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    guard shape.count >= 2 else {
      throw attributes.error(.shapeMismatch, "input \(shape) has no channel axis")
    }
    if !scaled {
      let listed = try attributes.ints("axes") ?? [0, 2, 3]
      var axes = Set<Int>()
      for axis in listed { axes.insert(try PlanBuilder.axis(axis, rank: shape.count, node)) }
      let normalized = axes
      try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, _ in
        Reduction.standardize(inputs[0], shape: shape, axes: normalized, into: outputs[0])
      }
      return
    }
    let epsilon = try attributes.float("epsilon", default: 1e-5)
    let (scale, scaleShape) = try floatOperand(node, 1)
    let (bias, biasShape) = try floatOperand(node, 2)
    let channels = shape[1]
    guard scaleShape == [channels], biasShape == [channels] else {
      throw attributes.error(
        .shapeMismatch, "scale \(scaleShape) and bias \(biasShape) for \(channels) channels")
    }
    let images = shape[0]
    let positions = shape[2...].reduce(1, *)
    let kernels = graph.kernels
    try addStep(node, inputs: [input, scale, bias], outputShapes: [shape]) {
      inputs, outputs, _ in
      for plane in 0..<(images * channels) {
        let channel = plane % channels
        let (factor, shift) = (inputs[1][channel], inputs[2][channel])
        let target = outputs[0] + plane * positions
        LayerNormalization.run(
          inputs[0] + plane * positions, rows: 1, length: positions, epsilon: epsilon,
          scale: nil, bias: nil, output: target, kernels: kernels)
        for index in 0..<positions { target[index] = target[index] * factor + shift }
      }
    }
  }
}

extension PlanBuilder {
  /// Plans `LRN`: each value divided by `(bias + alpha / size * sum of squares over a window of
  /// size channels) ^ beta`.
  mutating func planLocalResponseNormalization(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    guard let size = try attributes.int("size"), size > 0, shape.count >= 2 else {
      throw attributes.error(.invalidGraph, "LRN needs a positive size and a channel axis")
    }
    let alpha = try attributes.float("alpha", default: 1e-4)
    let beta = try attributes.float("beta", default: 0.75)
    let bias = try attributes.float("bias", default: 1)
    let (images, channels) = (shape[0], shape[1])
    let positions = shape[2...].reduce(1, *)
    let (below, above) = ((size - 1) / 2, size / 2)
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, _ in
      for image in 0..<images {
        let base = image * channels * positions
        for channel in 0..<channels {
          let window = Swift.max(0, channel - below)...Swift.min(channels - 1, channel + above)
          for position in 0..<positions {
            var squares: Float = 0
            for other in window {
              let value = inputs[0][base + other * positions + position]
              squares += value * value
            }
            let index = base + channel * positions + position
            outputs[0][index] =
              inputs[0][index] / Foundation.pow(bias + alpha / Float(size) * squares, beta)
          }
        }
      }
    }
  }
}

extension PlanBuilder {
  /// Plans `Einsum` over float inputs (``Einsum``).
  mutating func planEinsum(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let equation = try attributes.string("equation", default: "")
    guard !equation.isEmpty else {
      throw attributes.error(.invalidGraph, "'equation' is required")
    }
    var operands: [ExecutionPlan.Operand] = []
    var shapes: [[Int]] = []
    for position in node.inputs.indices {
      let (operand, shape) = try floatOperand(node, position)
      operands.append(operand)
      shapes.append(shape)
    }
    let einsum: Einsum
    do {
      einsum = try Einsum(equation, shapes: shapes)
    } catch {
      throw attributes.error(error.code, error.message)
    }
    try addStep(node, inputs: operands, outputShapes: [einsum.outputShape]) { inputs, outputs, _ in
      einsum.run(inputs, into: outputs[0])
    }
  }
}
