import Foundation

extension PlanBuilder {
  /// Plans one node with its registry entry: infers its output shapes and adds its step or
  /// binds its folded value.
  mutating func plan(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try node.entry.plan(&self, node)
  }

  // MARK: Convolution and pooling

  /// Strides, dilations and begin/end pads per spatial axis, with `auto_pad` resolved.
  struct WindowAxes {
    var strides: [Int]
    var dilations: [Int]
    var begins: [Int]
    var ends: [Int]
  }

  func windowAxes(
    _ node: ImportedGraph.Node, spatial: [Int], kernel: [Int]
  ) throws(NeuralCoreError) -> WindowAxes {
    let attributes = node.attributes
    let rank = spatial.count
    guard kernel.count == rank else {
      throw attributes.error(.shapeMismatch, "kernel \(kernel) for \(rank) spatial axes")
    }
    let strides = try attributes.ints("strides") ?? [Int](repeating: 1, count: rank)
    let dilations = try attributes.ints("dilations") ?? [Int](repeating: 1, count: rank)
    var pads = try attributes.ints("pads") ?? [Int](repeating: 0, count: 2 * rank)
    guard strides.count == rank, dilations.count == rank, pads.count == 2 * rank,
      strides.allSatisfy({ $0 > 0 }), dilations.allSatisfy({ $0 > 0 }),
      pads.allSatisfy({ $0 >= 0 }), kernel.allSatisfy({ $0 > 0 })
    else {
      throw attributes.error(.invalidGraph, "invalid strides, dilations, pads or kernel_shape")
    }
    switch try attributes.string("auto_pad", default: "NOTSET") {
    case "NOTSET": break
    case "VALID": pads = [Int](repeating: 0, count: 2 * rank)
    case let mode where mode == "SAME_UPPER" || mode == "SAME_LOWER":
      for axis in 0..<rank {
        let same = Window.samePadding(
          input: spatial[axis], kernel: kernel[axis], stride: strides[axis],
          dilation: dilations[axis], upper: mode == "SAME_UPPER")
        pads[axis] = same.begin
        pads[axis + rank] = same.end
      }
    case let mode: throw attributes.error(.unsupported, "auto_pad '\(mode)' is not supported")
    }
    return WindowAxes(
      strides: strides, dilations: dilations, begins: Array(pads[..<rank]),
      ends: Array(pads[rank...]))
  }

  /// Resolves strides, dilations, pads and `auto_pad` into a 2-D window (1-D as height 1).
  func window(
    _ node: ImportedGraph.Node, spatial: [Int], kernel: [Int]
  ) throws(NeuralCoreError) -> Window {
    guard spatial.count == 1 || spatial.count == 2 else {
      throw node.attributes.error(.unsupported, "only 1-D and 2-D windows are supported")
    }
    let axes = try windowAxes(node, spatial: spatial, kernel: kernel)
    if spatial.count == 1 {
      return Window(
        kernelHeight: 1, kernelWidth: kernel[0], strideX: axes.strides[0],
        dilationX: axes.dilations[0], padLeft: axes.begins[0], padRight: axes.ends[0])
    }
    return Window(
      kernelHeight: kernel[0], kernelWidth: kernel[1], strideY: axes.strides[0],
      strideX: axes.strides[1], dilationY: axes.dilations[0], dilationX: axes.dilations[1],
      padTop: axes.begins[0], padLeft: axes.begins[1], padBottom: axes.ends[0],
      padRight: axes.ends[1])
  }

  /// Plans `Conv` (1-D and 2-D), with packed weights when they are constant.
  mutating func planConvolution(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, inputShape) = try floatOperand(node, 0)
    guard inputShape.count == 3 || inputShape.count == 4 else {
      throw attributes.error(.unsupported, "only 1-D and 2-D convolutions are supported")
    }
    let weightShape = try requiredValue(node, 1).shape
    guard weightShape.count == inputShape.count, weightShape[0] > 0 else {
      throw attributes.error(.shapeMismatch, "weights \(weightShape) for input \(inputShape)")
    }
    let groups = try attributes.int("group", default: 1)
    let kernel = Array(weightShape[2...])
    if let declared = try attributes.ints("kernel_shape"), declared != kernel {
      throw attributes.error(.shapeMismatch, "kernel_shape \(declared) differs from weights")
    }
    guard groups > 0, inputShape[1] == weightShape[1] * groups, weightShape[0] % groups == 0
    else {
      throw attributes.error(
        .shapeMismatch, "input \(inputShape), weights \(weightShape) and group \(groups) disagree")
    }
    let spatial = Array(inputShape[2...])
    let window = try window(node, spatial: spatial, kernel: kernel)
    let height = spatial.count == 2 ? spatial[0] : 1
    let width = spatial[spatial.count - 1]
    guard let size = window.outputSize(height: height, width: width) else {
      throw attributes.error(.shapeMismatch, "kernel larger than padded input \(inputShape)")
    }
    let batch = inputShape[0]
    let outputShape =
      spatial.count == 2
      ? [batch, weightShape[0], size.height, size.width] : [batch, weightShape[0], size.width]
    var packed = node.convolution
    if packed == nil { packed = try graph.packedConvolution(node) }
    if packed == nil { packed = try plannedConvolution(node, groups: groups, window: window) }
    if let packed {
      let convolution = packed.with(window: window)
      try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, threads in
        convolution.run(
          input: inputs[0], batch: batch, height: height, width: width, output: outputs[0],
          threads: threads)
      }
      return
    }
    let (weights, _) = try floatOperand(node, 1)
    var operands = [input, weights]
    if try value(node, 2) != nil {
      let (bias, biasShape) = try floatOperand(node, 2)
      guard Tensor.elementCount(of: biasShape) == weightShape[0] else {
        throw attributes.error(.shapeMismatch, "bias \(biasShape) for \(weightShape[0]) filters")
      }
      operands.append(bias)
    }
    let weightCount = Tensor.elementCount(of: weightShape) ?? 0
    let outputChannels = weightShape[0]
    let inputChannels = inputShape[1]
    let activation = node.activation
    try addStep(node, inputs: operands, outputShapes: [outputShape]) { inputs, outputs, threads in
      let convolution = Convolution(
        weights: Array(UnsafeBufferPointer(start: inputs[1], count: weightCount)),
        bias: inputs.count > 2
          ? Array(UnsafeBufferPointer(start: inputs[2], count: outputChannels)) : nil,
        outputChannels: outputChannels, inputChannels: inputChannels, groups: groups,
        window: window, activation: activation)
      convolution.run(
        input: inputs[0], batch: batch, height: height, width: width, output: outputs[0],
        threads: threads)
    }
  }

  /// The convolution of weights and bias that became constants while planning (the centered
  /// weights of a quantized convolution), packed once; `nil` when either is computed.
  private func plannedConvolution(
    _ node: ImportedGraph.Node, groups: Int, window: Window
  ) throws(NeuralCoreError) -> Convolution? {
    guard case .constant(.float(let weights))? = try value(node, 1) else { return nil }
    var bias: [Float]?
    if let value = try value(node, 2) {
      guard case .constant(.float(let constant)) = value, constant.count == weights.shape[0]
      else { return nil }
      bias = constant.scalars
    }
    return Convolution(
      weights: weights.scalars, bias: bias, outputChannels: weights.shape[0],
      inputChannels: weights.shape[1] * groups, groups: groups, window: window,
      activation: node.activation, kernels: graph.kernels)
  }

  /// Plans `MaxPool` (`maximum`) or `AveragePool` over 1, 2 or more spatial axes.
  mutating func planPooling(
    _ node: ImportedGraph.Node, maximum: Bool
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let attributes = node.attributes
    let (input, inputShape) = try floatOperand(node, 0)
    guard inputShape.count >= 3 else {
      throw attributes.error(.shapeMismatch, "input \(inputShape) has no spatial axes")
    }
    guard let kernel = try attributes.ints("kernel_shape") else {
      throw attributes.error(.invalidGraph, "kernel_shape is required")
    }
    if try attributes.int("storage_order", default: 0) != 0 {
      throw attributes.error(.unsupported, "storage_order 1 is not supported")
    }
    let spatial = Array(inputShape[2...])
    let kind: Pooling.Kind =
      maximum
      ? .max : .average(countsPadding: try attributes.int("count_include_pad", default: 0) != 0)
    let ceilMode = try attributes.int("ceil_mode", default: 0) != 0
    let planes = inputShape[0] * inputShape[1]
    if spatial.count > 2 {
      let axes = try windowAxes(node, spatial: spatial, kernel: kernel)
      let pooling = VolumePooling(
        kind: kind, kernel: kernel, strides: axes.strides, dilations: axes.dilations,
        begins: axes.begins, ends: axes.ends, ceilMode: ceilMode)
      guard let outputSpatial = pooling.outputShape(spatial) else {
        throw attributes.error(.shapeMismatch, "window larger than padded input \(inputShape)")
      }
      try addStep(
        node, inputs: [input], outputShapes: [Array(inputShape[..<2]) + outputSpatial]
      ) { inputs, outputs, _ in
        pooling.run(input: inputs[0], planes: planes, spatial: spatial, output: outputs[0])
      }
      return
    }
    let window = try window(node, spatial: spatial, kernel: kernel)
    let pooling = Pooling(kind: kind, window: window, ceilMode: ceilMode)
    let height = spatial.count == 2 ? spatial[0] : 1
    let width = spatial[spatial.count - 1]
    guard let size = pooling.outputSize(height: height, width: width) else {
      throw attributes.error(.shapeMismatch, "window larger than padded input \(inputShape)")
    }
    let outputShape =
      spatial.count == 2
      ? [inputShape[0], inputShape[1], size.height, size.width]
      : [inputShape[0], inputShape[1], size.width]
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, threads in
      pooling.run(
        input: inputs[0], planes: planes, height: height, width: width, output: outputs[0],
        threads: threads)
    }
  }

  /// Plans `GlobalAveragePool`: the mean of each channel over its spatial axes.
  mutating func planGlobalAveragePool(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let (input, shape) = try floatOperand(node, 0)
    guard shape.count >= 3 else {
      throw node.attributes.error(.shapeMismatch, "input \(shape) has no spatial axes")
    }
    let planes = shape[0] * shape[1]
    let count = shape[2...].reduce(1, *)
    let outputShape = [shape[0], shape[1]] + [Int](repeating: 1, count: shape.count - 2)
    let kernels = graph.kernels.native
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, threads in
      Pooling.globalAverage(
        input: inputs[0], planes: planes, count: count, output: outputs[0], threads: threads,
        kernels: kernels)
    }
  }

  /// Plans `BatchNormalization` in inference or training mode (with updated statistics).
  mutating func planBatchNormalization(_ node: ImportedGraph.Node)
    throws(NeuralCoreError)
  {
    let isTraining = try node.attributes.int("training_mode", default: 0) != 0
    if !isTraining { try requireSingleOutput(node) }
    let epsilon = try node.attributes.float("epsilon", default: 1e-5)
    let momentum = try node.attributes.float("momentum", default: 0.9)
    let (input, shape) = try floatOperand(node, 0)
    guard shape.count >= 2 else {
      throw node.attributes.error(.shapeMismatch, "input \(shape) has no channel axis")
    }
    var operands = [input]
    for position in 1...4 {
      let (operand, parameterShape) = try floatOperand(node, position)
      guard Tensor.elementCount(of: parameterShape) == shape[1] else {
        throw node.attributes.error(
          .shapeMismatch, "parameter \(position) has shape \(parameterShape)")
      }
      operands.append(operand)
    }
    let channels = shape[1]
    let planes = shape[0] * channels
    let size = shape[2...].reduce(1, *)
    if isTraining {
      try addStep(node, inputs: operands, outputShapes: [shape, [channels], [channels]]) {
        inputs, outputs, _ in
        BatchStatistics.normalize(
          input: inputs[0], batch: shape[0], channels: channels, size: size, scale: inputs[1],
          shift: inputs[2], runningMean: inputs[3], runningVariance: inputs[4],
          momentum: momentum, epsilon: epsilon, output: outputs[0], updatedMean: outputs[1],
          updatedVariance: outputs[2])
      }
      return
    }
    try addStep(node, inputs: operands, outputShapes: [shape]) { inputs, outputs, _ in
      for plane in 0..<planes {
        let channel = plane % channels
        let factor = inputs[1][channel] / (inputs[4][channel] + epsilon).squareRoot()
        let shift = inputs[2][channel] - inputs[3][channel] * factor
        let source = inputs[0] + plane * size
        let target = outputs[0] + plane * size
        for index in 0..<size { target[index] = source[index] * factor + shift }
      }
    }
  }

  // MARK: Element-wise

  /// Plans an activation of one float tensor (`Relu`, `Sigmoid`, `HardSwish`, `HardSigmoid`).
  mutating func planActivation(
    _ node: ImportedGraph.Node, _ activation: Activation
  ) throws(NeuralCoreError) {
    let (input, shape) = try floatOperand(node, 0)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, threads in
      kernels.native.activate(
        activation.native, inputs[0], outputs[0], count: count, threads: threads)
    }
  }

  /// Plans `Clip`: bounds from attributes before opset 11, from scalar inputs after.
  mutating func planClip(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let count = Tensor.elementCount(of: shape) ?? 0
    var operands = [input]
    var boundPositions: [Int] = []
    let low = try attributes.float("min", default: -.greatestFiniteMagnitude)
    let high = try attributes.float("max", default: .greatestFiniteMagnitude)
    if node.opset >= 11 {
      for position in 1..<max(1, min(node.inputs.count, 3)) where try value(node, position) != nil {
        let (bound, boundShape) = try floatOperand(node, position)
        guard Tensor.elementCount(of: boundShape) == 1 else {
          throw attributes.error(.shapeMismatch, "Clip bound \(position) is not a scalar")
        }
        operands.append(bound)
        boundPositions.append(position)
      }
    }
    let fixed = Activation.clip(min: low, max: high)
    let positions = boundPositions
    let kernels = graph.kernels
    try addStep(node, inputs: operands, outputShapes: [shape]) { inputs, outputs, _ in
      var applied = fixed
      if case .clip(var low, var high) = fixed, !positions.isEmpty {
        for (index, position) in positions.enumerated() {
          if position == 1 { low = inputs[index + 1][0] } else { high = inputs[index + 1][0] }
        }
        applied = .clip(min: low, max: high)
      }
      var function = applied.native
      kernels.native.activate(&function, inputs[0], outputs[0], Int64(count))
    }
  }

  /// Folds a binary operator of two integer constants (``IntegerArithmetic``).
  ///
  /// - Returns: `false`, having bound nothing, when an operand is not an integer constant.
  mutating func foldIntegerBinary(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation
  ) throws(NeuralCoreError) -> Bool {
    guard IntegerArithmetic.folds(operation),
      case .constant(.integer(let a, let aShape)) = try requiredValue(node, 0),
      case .constant(.integer(let b, let bShape)) = try requiredValue(node, 1)
    else { return false }
    guard
      let result = IntegerArithmetic.apply(
        operation, a: a, aShape: aShape, b: b, bShape: bShape)
    else {
      throw node.attributes.error(
        .shapeMismatch, "integer operands \(aShape) and \(bShape) do not combine")
    }
    try bind(node, .constant(.integer(result.values, shape: result.shape)))
    return true
  }

  /// Plans a broadcasting binary operator (`Add`, `Sub`, `Mul`, `Div`, `Pow`, `PRelu`, `Mod`).
  mutating func planBinary(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation
  ) throws(NeuralCoreError) {
    let kernels = graph.kernels.native
    if try foldIntegerBinary(node, operation) { return }
    let (a, aShape) = try floatOperand(node, 0)
    // Pow's exponent may be an integer tensor (ONNX allows it); its values become floats.
    let (b, bShape) =
      operation == .power
      ? try floatOperand(node, 1, convertingIntegers: true) : try floatOperand(node, 1)
    guard let shape = Elementwise.broadcastShape(aShape, bShape) else {
      throw node.attributes.error(.shapeMismatch, "shapes \(aShape) and \(bShape) do not broadcast")
    }
    try addStep(node, inputs: [a, b], outputShapes: [shape]) { inputs, outputs, threads in
      Elementwise.run(
        operation, a: inputs[0], aShape: aShape, b: inputs[1], bShape: bShape, output: outputs[0],
        outputShape: shape, threads: threads, kernels: kernels)
    }
  }

  // MARK: Matrix products

  /// Plans `Gemm`: `alpha * A' * B' + beta * C`, with constant transposed weights pretransposed.
  mutating func planGemm(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let (a, aShape) = try floatOperand(node, 0)
    let transposeA = try attributes.int("transA", default: 0) != 0
    var transposeB = try attributes.int("transB", default: 0) != 0
    let b: ExecutionPlan.Operand
    let bShape: [Int]
    // More rows than GEMM.fewRows read constant weights packed once, here, from B in row-major
    // order; fewer read them in place, so transposed weights are kept transposed for them.
    let packs = aShape.count == 2 && (transposeA ? aShape[1] : aShape[0]) > GEMM.fewRows
    var rowMajorB = transposeB ? nil : knownFloats(try value(node, 1))
    if transposeB, case .constant(.float(let weights))? = try value(node, 1), weights.rank == 2 {
      // Constant weights are transposed once here so the GEMM reads B rows contiguously.
      let (rows, columns) = (weights.shape[0], weights.shape[1])
      var transposed = [Float](repeating: 0, count: weights.count)
      weights.scalars.withUnsafeBufferPointer { source in
        transposed.withUnsafeMutableBufferPointer { destination in
          guard let input = source.baseAddress, let output = destination.baseAddress,
            source.count == rows * columns, destination.count == source.count
          else { return }
          Layout.transposeMatrix(input: input, rows: rows, columns: columns, output: output)
        }
      }
      if packs {
        rowMajorB = transposed
        (b, bShape) = try floatOperand(node, 1)
      } else {
        bShape = [columns, rows]
        b = intern(
          node.inputs[1] + "::transposed", try Tensor(shape: bShape, scalars: transposed))
        transposeB = false
      }
    } else {
      (b, bShape) = try floatOperand(node, 1)
    }
    let alpha = try attributes.float("alpha", default: 1)
    let beta = try attributes.float("beta", default: 1)
    guard aShape.count == 2, bShape.count == 2 else {
      throw attributes.error(.shapeMismatch, "Gemm needs matrices, got \(aShape) and \(bShape)")
    }
    let m = transposeA ? aShape[1] : aShape[0]
    let k = transposeA ? aShape[0] : aShape[1]
    let n = transposeB ? bShape[0] : bShape[1]
    guard k == (transposeB ? bShape[1] : bShape[0]) else {
      throw attributes.error(.shapeMismatch, "Gemm inner dimensions of \(aShape), \(bShape)")
    }
    var operands = [a, b]
    var cShape: [Int]?
    if try value(node, 2) != nil && beta != 0 {
      let (c, shape) = try floatOperand(node, 2)
      guard let broadcast = Elementwise.broadcastShape(shape, [m, n]), broadcast == [m, n] else {
        throw attributes.error(
          .shapeMismatch, "C of shape \(shape) does not broadcast to [\(m), \(n)]")
      }
      operands.append(c)
      cShape = shape
    }
    let fixedCShape = cShape
    let (bRowStride, bColumnStride) = transposeB ? (1, k) : (n, 1)
    let packed =
      packs
      ? rowMajorB.map { GEMM.prepackB(depth: k, columns: n, $0, kernels: graph.kernels) } : nil
    let kernels = graph.kernels
    try addStep(node, inputs: operands, outputShapes: [[m, n]]) { inputs, outputs, threads in
      if let cShape = fixedCShape {
        withUnsafePointer(to: beta) { betaPointer in
          Elementwise.run(
            .multiply, a: inputs[2], aShape: cShape, b: betaPointer, bShape: [], output: outputs[0],
            outputShape: [m, n], kernels: kernels.native)
        }
      }
      GEMM.multiplyStrided(
        rows: m, columns: n, depth: k, a: inputs[0], aRowStride: transposeA ? 1 : k,
        aColumnStride: transposeA ? m : 1, b: inputs[1], bRowStride: bRowStride,
        bColumnStride: bColumnStride, alpha: alpha, c: outputs[0], ldc: n,
        accumulates: fixedCShape != nil, threads: threads, prepackedB: packed, kernels: kernels)
    }
  }

  /// The floats of a float constant, or `nil` for a value computed at run time.
  private func knownFloats(_ value: PlanBuilder.Value?) -> [Float]? {
    guard case .constant(.float(let tensor))? = value else { return nil }
    return tensor.scalars
  }

  /// Plans `MatMul` with NumPy batch broadcasting.
  mutating func planMatMul(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let (a, aShape) = try floatOperand(node, 0)
    let (b, bShape) = try floatOperand(node, 1)
    guard !aShape.isEmpty, !bShape.isEmpty else {
      throw node.attributes.error(.shapeMismatch, "MatMul of scalars")
    }
    let aMatrix = aShape.count == 1 ? [1, aShape[0]] : aShape
    let bMatrix = bShape.count == 1 ? [bShape[0], 1] : bShape
    let m = aMatrix[aMatrix.count - 2]
    let k = aMatrix[aMatrix.count - 1]
    let n = bMatrix[bMatrix.count - 1]
    guard bMatrix[bMatrix.count - 2] == k,
      let batchShape = Elementwise.broadcastShape(
        Array(aMatrix.dropLast(2)), Array(bMatrix.dropLast(2)))
    else {
      throw node.attributes.error(.shapeMismatch, "MatMul of \(aShape) and \(bShape)")
    }
    // A scale import folded in from a Mul of one operand (foldInputScale).
    let alpha = try node.attributes.float("alpha", default: 1)
    var outputShape = batchShape
    if aShape.count > 1 { outputShape.append(m) }
    if bShape.count > 1 { outputShape.append(n) }
    if bMatrix.count == 2 && aShape.count >= 2 {
      // One B for every batch: A's batches are more rows of one product (a transformer's
      // [tokens, 1, features] times its weights), not as many matrix-vector products. Constant
      // weights are packed for the kernels once, here.
      let rows = aMatrix.dropLast().reduce(1, *)
      let packed =
        rows > GEMM.fewRows
        ? knownFloats(try value(node, 1)).map {
          GEMM.prepackB(depth: k, columns: n, $0, kernels: graph.kernels)
        } : nil
      let kernels = graph.kernels
      var operands = [a, b]
      if let bias = try linearBias(node, columns: n) { operands.append(bias) }
      try addStep(node, inputs: operands, outputShapes: [outputShape]) {
        inputs, outputs, threads in
        GEMM.multiplyStrided(
          rows: rows, columns: n, depth: k, a: inputs[0], aRowStride: k, aColumnStride: 1,
          b: inputs[1], bRowStride: n, bColumnStride: 1, alpha: alpha, c: outputs[0], ldc: n,
          accumulates: false, threads: threads, prepackedB: packed,
          columnBias: inputs.count > 2 ? inputs[2] : nil, kernels: kernels)
      }
      return
    }
    guard node.inputs.count < 3 else {
      // Import folds a bias only into products with 2-D weights, which take the path above.
      throw node.attributes.error(.unsupported, "a folded bias needs a matrix of weights")
    }
    let batches = batchShape.reduce(1, *)
    let aStrides = Elementwise.broadcastStrides(Array(aMatrix.dropLast(2)), to: batchShape)
    let bStrides = Elementwise.broadcastStrides(Array(bMatrix.dropLast(2)), to: batchShape)
    try addStep(node, inputs: [a, b], outputShapes: [outputShape]) { inputs, outputs, threads in
      for batch in 0..<batches {
        var remainder = batch
        var aOffset = 0
        var bOffset = 0
        for axis in stride(from: batchShape.count - 1, through: 0, by: -1) {
          let coordinate = remainder % batchShape[axis]
          remainder /= batchShape[axis]
          aOffset += coordinate * aStrides[axis]
          bOffset += coordinate * bStrides[axis]
        }
        GEMM.multiplyStrided(
          rows: m, columns: n, depth: k, a: inputs[0] + aOffset * m * k, aRowStride: k,
          aColumnStride: 1, b: inputs[1] + bOffset * k * n, bRowStride: n, bColumnStride: 1,
          alpha: alpha, c: outputs[0] + batch * m * n, ldc: n, accumulates: false,
          threads: threads)
      }
    }
  }

  /// The bias import folded into a MatMul node (``ImportedGraph/foldLinearBias(at:uses:)``):
  /// one value per column, or `nil` for a plain MatMul.
  private mutating func linearBias(
    _ node: ImportedGraph.Node, columns: Int
  ) throws(NeuralCoreError) -> ExecutionPlan.Operand? {
    guard try value(node, 2) != nil else { return nil }
    let (operand, shape) = try floatOperand(node, 2)
    guard shape == [columns] else {
      throw node.attributes.error(.shapeMismatch, "bias \(shape) for \(columns) columns")
    }
    return operand
  }

  // MARK: Data movement

  /// Plans `Softmax`, `LogSoftmax` or `Hardmax` (`kind`): over the axes from `axis` on before
  /// opset 13, over `axis` alone from opset 13.
  mutating func planSoftmax(
    _ node: ImportedGraph.Node, _ kind: Softmax.Kind
  ) throws(NeuralCoreError) {
    let (input, shape) = try floatOperand(node, 0)
    let legacy = node.opset < 13
    let axis = try PlanBuilder.axis(
      try node.attributes.int("axis", default: legacy ? 1 : -1), rank: shape.count, node)
    let outer = shape[..<axis].reduce(1, *)
    let length = legacy ? shape[axis...].reduce(1, *) : (shape.isEmpty ? 1 : shape[axis])
    let inner = legacy ? 1 : shape.dropFirst(axis + 1).reduce(1, *)
    let kernels = graph.kernels
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, threads in
      Softmax.run(
        kind, input: inputs[0], output: outputs[0], outer: outer, length: length, inner: inner,
        kernels: kernels, threads: threads)
    }
  }

  /// Plans `Transpose`; of an integer constant it is folded while planning.
  mutating func planTranspose(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let shape = try requiredValue(node, 0).shape
    let permutation =
      try node.attributes.ints("perm") ?? Array((0..<shape.count).reversed())
    guard permutation.sorted() == Array(0..<shape.count) else {
      throw node.attributes.error(.invalidGraph, "perm \(permutation) for rank \(shape.count)")
    }
    let outputShape = permutation.map { shape[$0] }
    if case .constant(.integer(let values, _)) = try requiredValue(node, 0) {
      let strides = Layout.strides(of: shape)
      var result = values
      Layout.walk(outputShape, strides: permutation.map { strides[$0] }) { index, offset in
        result[index] = values[offset]
      }
      try bind(node, .constant(.integer(result, shape: outputShape)))
      return
    }
    let (input, _) = try floatOperand(node, 0)
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, _ in
      Layout.transpose(
        input: inputs[0], shape: shape, permutation: permutation, output: outputs[0])
    }
  }

  /// Plans `Concat`; of integer constants it is folded while planning.
  mutating func planConcat(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let present = node.inputs.indices.filter { !node.inputs[$0].isEmpty }
    guard let first = present.first else {
      throw node.attributes.error(.invalidGraph, "Concat without inputs")
    }
    let rank = try requiredValue(node, first).shape.count
    let axis = try PlanBuilder.axis(
      try node.attributes.int("axis", default: 0), rank: rank, node)
    var integerParts: [[Int64]] = []
    var allIntegers = true
    for position in present {
      if case .constant(.integer(let values, _)) = try requiredValue(node, position) {
        integerParts.append(values)
      } else {
        allIntegers = false
      }
    }
    var shapes: [[Int]] = []
    for position in present { shapes.append(try requiredValue(node, position).shape) }
    var outputShape = shapes[0]
    outputShape[axis] = 0
    for shape in shapes {
      guard shape.count == rank,
        (0..<rank).allSatisfy({ $0 == axis || shape[$0] == outputShape[$0] })
      else {
        throw node.attributes.error(.shapeMismatch, "Concat of shapes \(shapes) on axis \(axis)")
      }
      outputShape[axis] += shape[axis]
    }
    let outer = outputShape[..<axis].reduce(1, *)
    let blocks = shapes.map { $0[axis...].reduce(1, *) }
    if allIntegers {
      var joined: [Int64] = []
      for block in 0..<outer {
        for (part, length) in zip(integerParts, blocks) {
          joined += part[(block * length)..<((block + 1) * length)]
        }
      }
      try bind(node, .constant(.integer(joined, shape: outputShape)))
      return
    }
    var operands: [ExecutionPlan.Operand] = []
    for position in present { operands.append(try floatOperand(node, position).operand) }
    try addStep(node, inputs: operands, outputShapes: [outputShape]) { inputs, outputs, _ in
      Layout.concatenate(inputs: inputs, blocks: blocks, outer: outer, output: outputs[0])
    }
  }

  /// Plans `Pad` (constant, reflect and edge), pads from the attribute before opset 11.
  mutating func planPad(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let (input, shape) = try floatOperand(node, 0)
    let modeName = try attributes.string("mode", default: "constant")
    var pads: [Int]
    var constantOperand: ExecutionPlan.Operand?
    var fill: Float = 0
    if node.opset < 11 {
      guard let attributePads = try attributes.ints("pads") else {
        throw attributes.error(.invalidGraph, "pads is required")
      }
      pads = attributePads
      fill = try attributes.float("value", default: 0)
    } else {
      guard let inputPads = try integers(node, 1) else {
        throw attributes.error(.invalidGraph, "pads input is required")
      }
      pads = inputPads
      if try value(node, 2) != nil {
        let (operand, valueShape) = try floatOperand(node, 2)
        guard Tensor.elementCount(of: valueShape) == 1 else {
          throw attributes.error(.shapeMismatch, "constant_value is not a scalar")
        }
        constantOperand = operand
      }
      if let axes = try integers(node, 3) {
        guard pads.count == 2 * axes.count else {
          throw attributes.error(.shapeMismatch, "pads \(pads) for axes \(axes)")
        }
        var full = [Int](repeating: 0, count: 2 * shape.count)
        for (index, axis) in axes.enumerated() {
          let normalized = try PlanBuilder.axis(axis, rank: shape.count, node)
          full[normalized] = pads[index]
          full[normalized + shape.count] = pads[index + axes.count]
        }
        pads = full
      }
    }
    guard pads.count == 2 * shape.count, !shape.isEmpty else {
      throw attributes.error(.shapeMismatch, "pads \(pads) for rank \(shape.count)")
    }
    let begins = Array(pads[..<shape.count])
    let ends = Array(pads[shape.count...])
    let outputShape = (0..<shape.count).map { shape[$0] + begins[$0] + ends[$0] }
    guard outputShape.allSatisfy({ $0 >= 0 }) else {
      throw attributes.error(.shapeMismatch, "pads \(pads) crop more than \(shape)")
    }
    let isConstant: Bool
    switch modeName {
    case "constant": isConstant = true
    case "reflect", "edge": isConstant = false
    default: throw attributes.error(.unsupported, "pad mode '\(modeName)' is not supported")
    }
    if !isConstant && shape.contains(0) {
      throw attributes.error(.shapeMismatch, "\(modeName) padding of an empty axis")
    }
    if pads.allSatisfy({ $0 == 0 }) {
      // Nothing to add (Swin pads each stage to whole windows, which a 224 input already is).
      try bind(node, try requiredValue(node, 0))
      return
    }
    var operands = [input]
    if let constantOperand { operands.append(constantOperand) }
    let fixedFill = fill
    try addStep(node, inputs: operands, outputShapes: [outputShape]) { inputs, outputs, _ in
      let mode: Layout.PadMode =
        switch modeName {
        case "reflect": .reflect
        case "edge": .edge
        default: .constant(inputs.count > 1 ? inputs[1][0] : fixedFill)
        }
      Layout.pad(
        input: inputs[0], shape: shape, begins: begins, ends: ends, mode: mode,
        output: outputs[0])
    }
  }
}
