extension PlanBuilder {
  /// Plans a node on blocked (NCHWxc) tensors when its registry entry can run it there:
  /// convolutions with a blocked form, additions of two blocked tensors, ReLU, max pooling and
  /// global average pooling of one.
  ///
  /// - Returns: `false`, having planned nothing, when the node runs on NCHW tensors.
  mutating func planBlocked(_ node: ImportedGraph.Node) throws(NeuralCoreError) -> Bool {
    guard let planner = node.entry.planBlocked else { return false }
    return try planner(&self, node, BlockedLayout(kernels: graph.kernels))
  }

  /// Gives every input of `node` held only in blocked layout an NCHW copy, so that planners
  /// of NCHW kernels find it in `values`.
  mutating func unblockInputs(of node: ImportedGraph.Node) throws(NeuralCoreError) {
    for name in node.inputs where !name.isEmpty { try unblock(name) }
  }

  /// Adds the step that copies a blocked-only value to NCHW, once.
  mutating func unblock(_ name: String) throws(NeuralCoreError) {
    guard values[name] == nil, let (blockedID, shape) = blockedValues[name] else { return }
    let id = try newBuffer(shape: shape, for: name)
    addReorderStep(
      name, .unblock, BlockedLayout(kernels: graph.kernels), from: blockedID, to: id, shape: shape)
    values[name] = .runtime(id: id, shape: shape)
  }

  /// The blocked buffer of a 4-D run-time input, adding the copy from NCHW when there is none.
  private mutating func blockedInput(
    _ node: ImportedGraph.Node, _ position: Int, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> (id: Int, shape: [Int])? {
    guard position < node.inputs.count else { return nil }
    let name = node.inputs[position]
    if let blocked = blockedValues[name] { return blocked }
    guard case .runtime(let sourceID, let shape)? = values[name], shape.count == 4 else {
      return nil
    }
    let id = try newBlockedBuffer(shape: shape, layout, for: name)
    addReorderStep(name, .block, layout, from: sourceID, to: id, shape: shape)
    blockedValues[name] = (id, shape)
    return (id, shape)
  }

  /// Adds the step `<name>::block` or `<name>::unblock` copying a 4-D value between layouts.
  private mutating func addReorderStep(
    _ name: String, _ direction: BlockedLayout.Direction, _ layout: BlockedLayout,
    from source: Int, to target: Int, shape: [Int]
  ) {
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    steps.append(
      ExecutionPlan.Step(
        name: name + (direction == .block ? "::block" : "::unblock"), inputs: [.buffer(source)],
        outputs: [target]
      ) { inputs, outputs, threads in
        layout.reorder(
          inputs[0], direction: direction, batch: batch, channels: channels,
          positions: positions, into: outputs[0], threads: threads)
      })
  }

  private mutating func newBlockedBuffer(
    shape: [Int], _ layout: BlockedLayout, for name: String
  ) throws(NeuralCoreError) -> Int {
    try newBuffer(
      shape: [shape[0], layout.paddedChannels(shape[1]), shape[2], shape[3]], for: name)
  }

  /// Adds a step writing one blocked tensor of `shape` as the node's output.
  private mutating func addBlockedStep(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout, inputs: [Int], shape: [Int],
    execute:
      @escaping @Sendable (
        _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>], _ threads: Int
      ) -> Void
  ) throws(NeuralCoreError) {
    guard let name = node.outputs.first, !name.isEmpty else {
      throw node.attributes.error(.invalidGraph, "node has no output")
    }
    let id = try newBlockedBuffer(shape: shape, layout, for: name)
    blockedValues[name] = (id, shape)
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: inputs.map { .buffer($0) }, outputs: [id],
        execute: execute))
  }

  /// Plans `Conv` on blocked tensors when its weights were packed for the blocked layout.
  mutating func planBlockedConvolution(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    guard let packed = node.blocked, node.outputs.dropFirst().allSatisfy(\.isEmpty),
      let inputName = node.inputs.first
    else { return false }
    let inputShape = blockedValues[inputName]?.shape ?? values[inputName]?.shape ?? []
    guard inputShape.count == 4, inputShape[1] == packed.inputChannels else { return false }
    let spatial = Array(inputShape[2...])
    let window = try window(
      node, spatial: spatial, kernel: [packed.window.kernelHeight, packed.window.kernelWidth])
    guard let convolution = packed.with(window: window),
      let size = window.outputSize(height: spatial[0], width: spatial[1]),
      convolution.kind != .winograd
        || BlockedConvolution.winogradTiles(height: size.height, width: size.width).count
          >= BlockedConvolution.winogradMinimumTiles
    else { return false }
    let input: Int
    if convolution.kind == .direct {
      try unblock(inputName)
      guard case .runtime(let id, _)? = values[inputName] else { return false }
      input = id
    } else {
      guard let blocked = try blockedInput(node, 0, layout) else { return false }
      input = blocked.id
    }
    let (batch, height, width) = (inputShape[0], spatial[0], spatial[1])
    try addBlockedStep(
      node, layout, inputs: [input],
      shape: [batch, convolution.outputChannels, size.height, size.width]
    ) { inputs, outputs, threads in
      convolution.run(
        input: inputs[0], batch: batch, height: height, width: width, output: outputs[0],
        threads: threads)
    }
    if convolution.kind == .pointwise, node.activation == .identity, let output = node.outputs.first
    {
      foldablePointwise = FoldablePointwise(
        step: steps.count - 1, output: output, convolution: convolution, input: input,
        residual: nil, batch: batch, height: height, width: width)
    }
    return true
  }

  /// Folds `Add(conv, residual)` into the blocked pointwise convolution planned just before it
  /// (a projection without activation whose output nothing else reads): the kernel adds the
  /// residual while its output tile is in registers, saving a step and a pass over memory.
  private mutating func foldResidualAdd(
    _ node: ImportedGraph.Node, _ a: (id: Int, shape: [Int]), _ b: (id: Int, shape: [Int])
  ) -> Bool {
    guard let fold = foldablePointwise, fold.step == steps.count - 1,
      let output = node.outputs.first, !output.isEmpty
    else { return false }
    let residual: (id: Int, shape: [Int])
    if node.inputs[0] == fold.output && node.inputs[1] != fold.output {
      residual = b
    } else if node.inputs[1] == fold.output && node.inputs[0] != fold.output {
      residual = a
    } else {
      return false
    }
    // The Add is its only reader (a graph output counts as a reader too).
    guard uses[fold.output] == 1, let produced = blockedValues[fold.output] else { return false }
    let (convolution, batch, height, width) = (
      fold.convolution, fold.batch, fold.height, fold.width
    )
    guard fold.residual == nil else { return false }
    steps[fold.step] = ExecutionPlan.Step(
      name: steps[fold.step].name + " + " + node.source.name,
      inputs: [.buffer(fold.input), .buffer(residual.id)], outputs: [produced.id]
    ) { inputs, outputs, threads in
      convolution.run(
        input: inputs[0], batch: batch, height: height, width: width, residual: inputs[1],
        output: outputs[0], threads: threads)
    }
    blockedValues[output] = produced
    // A ReLU after the sum (as in ResNet's blocks) can still be folded: the kernel clamps after
    // it adds the residual.
    foldablePointwise = FoldablePointwise(
      step: fold.step, output: output, convolution: convolution, input: fold.input,
      residual: residual.id, batch: batch, height: height, width: width)
    return true
  }

  /// Plans `Relu` of a blocked tensor: folded into the pointwise convolution (with or without
  /// a folded residual) planned just before it when that step's output has no other reader,
  /// else an element-wise step on the blocked buffer (its padding channels stay zero).
  mutating func planBlockedRelu(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    guard let input = node.inputs.first, let blocked = blockedValues[input], values[input] == nil,
      let output = node.outputs.first, !output.isEmpty
    else { return false }
    if let fold = foldablePointwise, fold.step == steps.count - 1, fold.output == input,
      uses[input] == 1
    {
      let convolution = fold.convolution.with(bounds: (0, .infinity))
      let (batch, height, width) = (fold.batch, fold.height, fold.width)
      var inputs: [ExecutionPlan.Operand] = [.buffer(fold.input)]
      if let residual = fold.residual { inputs.append(.buffer(residual)) }
      steps[fold.step] = ExecutionPlan.Step(
        name: steps[fold.step].name + " + " + node.source.name, inputs: inputs,
        outputs: [blocked.id]
      ) { inputs, outputs, threads in
        convolution.run(
          input: inputs[0], batch: batch, height: height, width: width,
          residual: inputs.count > 1 ? inputs[1] : nil, output: outputs[0], threads: threads)
      }
      blockedValues[output] = blocked
      foldablePointwise = nil
      return true
    }
    let shape = blocked.shape
    let count =
      shape[0] * layout.imageSize(channels: shape[1], positions: shape[2] * shape[3])
    try addBlockedStep(node, layout, inputs: [blocked.id], shape: shape) { inputs, outputs, _ in
      outputs[0].update(from: inputs[0], count: count)
      layout.native.apply(.relu, to: outputs[0], count: count)
    }
    return true
  }

  /// Plans `Add` of two blocked tensors of one shape, folded into a preceding pointwise
  /// convolution when it can be.
  mutating func planBlockedAdd(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    let kernels = graph.kernels.native
    guard node.inputs.count == 2, let a = blockedValues[node.inputs[0]],
      let b = blockedValues[node.inputs[1]], a.shape == b.shape
    else { return false }
    if foldResidualAdd(node, a, b) { return true }
    let count =
      a.shape[0] * layout.imageSize(channels: a.shape[1], positions: a.shape[2] * a.shape[3])
    try addBlockedStep(node, layout, inputs: [a.id, b.id], shape: a.shape) {
      inputs, outputs, threads in
      Elementwise.run(
        .add, a: inputs[0], aShape: [count], b: inputs[1], bShape: [count], output: outputs[0],
        outputShape: [count], threads: threads, kernels: kernels)
    }
    return true
  }

  /// Plans `Mul` of a blocked tensor by one factor per channel (`[N, C, 1, 1]`, blocked or
  /// NCHW: a squeeze-excitation gate) or by a blocked tensor of its own shape, on blocked
  /// tensors; any other product runs on NCHW.
  mutating func planBlockedMul(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    let kernels = graph.kernels.native
    guard node.inputs.count == 2 else { return false }
    for (image, factors) in [(0, 1), (1, 0)] {
      guard let x = blockedValues[node.inputs[image]], x.shape.count == 4 else { continue }
      let name = node.inputs[factors]
      if let y = blockedValues[name], y.shape == x.shape {
        let count =
          x.shape[0] * layout.imageSize(channels: x.shape[1], positions: x.shape[2] * x.shape[3])
        try addBlockedStep(node, layout, inputs: [x.id, y.id], shape: x.shape) {
          inputs, outputs, threads in
          Elementwise.run(
            .multiply, a: inputs[0], aShape: [count], b: inputs[1], bShape: [count],
            output: outputs[0], outputShape: [count], threads: threads, kernels: kernels)
        }
        return true
      }
      let (batch, channels) = (x.shape[0], x.shape[1])
      let gate =
        blockedValues[name]
        ?? values[name].flatMap { value in
          guard case .runtime(let id, let shape) = value else { return nil }
          return (id, shape)
        }
      guard let gate, gate.shape == [batch, channels, 1, 1] else { continue }
      let padded = blockedValues[name] != nil
      try addBlockedStep(node, layout, inputs: [x.id, gate.id], shape: x.shape) {
        inputs, outputs, threads in
        layout.scale(
          inputs[0], by: inputs[1], padded: padded, batch: batch, channels: channels,
          positions: x.shape[2] * x.shape[3], into: outputs[0], threads: threads)
      }
      return true
    }
    return false
  }

  /// Plans `Transpose` between the blocked layout and channels-last order as one pass.
  ///
  /// ConvNeXt's blocks begin with permutation `[0, 2, 3, 1]` of a blocked tensor and end with
  /// `[0, 3, 1, 2]`, which becomes blocked when every reader has a blocked planner. Any other
  /// permutation runs on NCHW.
  mutating func planBlockedTranspose(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    if try planTransposeToBlocked(node, layout) { return true }
    guard let input = node.inputs.first, let blocked = blockedValues[input],
      values[input] == nil, blocked.shape.count == 4,
      try node.attributes.ints("perm") == [0, 2, 3, 1]
    else { return false }
    let shape = blocked.shape
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    try addStep(
      node, inputs: [.buffer(blocked.id)], outputShapes: [[shape[0], shape[2], shape[3], shape[1]]]
    ) { inputs, outputs, threads in
      layout.toChannelsLast(
        inputs[0], batch: batch, channels: channels, positions: positions, into: outputs[0],
        threads: threads)
    }
    return true
  }

  private mutating func planTransposeToBlocked(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    guard let input = node.inputs.first, blockedValues[input] == nil,
      case .runtime(let id, let shape)? = values[input], shape.count == 4,
      try node.attributes.ints("perm") == [0, 3, 1, 2], let output = node.outputs.first,
      !graph.outputs.contains(where: { $0.name == output })
    else { return false }
    let readers = graph.nodes.filter { $0.inputs.contains(output) }
    guard !readers.isEmpty, readers.allSatisfy({ $0.entry.planBlocked != nil }) else {
      return false
    }
    let (batch, channels, positions) = (shape[0], shape[3], shape[1] * shape[2])
    try addBlockedStep(node, layout, inputs: [id], shape: [batch, channels, shape[1], shape[2]]) {
      inputs, outputs, threads in
      layout.fromChannelsLast(
        inputs[0], batch: batch, channels: channels, positions: positions, into: outputs[0],
        threads: threads)
    }
    return true
  }

  /// Plans a 2-D `MaxPool` of a blocked tensor (no `Indices` output, `storage_order` 0); any
  /// other runs on NCHW.
  mutating func planBlockedMaxPool(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    let attributes = node.attributes
    guard let input = node.inputs.first, let blocked = blockedValues[input],
      node.outputs.dropFirst().allSatisfy(\.isEmpty),
      try attributes.int("storage_order", default: 0) == 0,
      let kernel = try attributes.ints("kernel_shape"), kernel.count == 2
    else { return false }
    let shape = blocked.shape
    let window = try window(node, spatial: Array(shape[2...]), kernel: kernel)
    let ceilMode = try attributes.int("ceil_mode", default: 0) != 0
    guard let size = window.outputSize(height: shape[2], width: shape[3], ceilMode: ceilMode)
    else { return false }
    let (batch, channels, height, width) = (shape[0], shape[1], shape[2], shape[3])
    try addBlockedStep(
      node, layout, inputs: [blocked.id], shape: [batch, channels, size.height, size.width]
    ) { inputs, outputs, threads in
      layout.maxPool(
        inputs[0], batch: batch, channels: channels, height: height, width: width,
        window: window, size: size, into: outputs[0], threads: threads)
    }
    return true
  }

  /// Plans `ReduceMean` over the two spatial axes of a blocked 4-D tensor (as ShuffleNet and
  /// MnasNet end) with the global average pool's kernel; other reductions run on NCHW.
  mutating func planBlockedSpatialMean(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    guard let input = node.inputs.first, let blocked = blockedValues[input],
      blocked.shape.count == 4, node.outputs.count == 1
    else { return false }
    var listed = try node.attributes.ints("axes")
    if let axesInput = try value(node, 1) {
      guard case .constant(.integer(let values, _)) = axesInput else { return false }
      listed = values.map { Int(clamping: $0) }
    }
    guard let listed, Set(listed.map { $0 < 0 ? $0 + 4 : $0 }) == [2, 3], listed.count == 2
    else { return false }
    let keepDimensions = try node.attributes.int("keepdims", default: 1) != 0
    let shape = blocked.shape
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    let outputShape = keepDimensions ? [batch, channels, 1, 1] : [batch, channels]
    try addStep(node, inputs: [.buffer(blocked.id)], outputShapes: [outputShape]) {
      inputs, outputs, _ in
      layout.globalAverage(
        inputs[0], batch: batch, channels: channels, positions: positions, into: outputs[0])
    }
    return true
  }

  /// Plans `GlobalAveragePool` of a blocked tensor.
  mutating func planBlockedGlobalAverage(
    _ node: ImportedGraph.Node, _ layout: BlockedLayout
  ) throws(NeuralCoreError) -> Bool {
    guard let input = node.inputs.first, let blocked = blockedValues[input] else { return false }
    let shape = blocked.shape
    let (batch, channels, positions) = (shape[0], shape[1], shape[2] * shape[3])
    try addStep(node, inputs: [.buffer(blocked.id)], outputShapes: [[batch, channels, 1, 1]]) {
      inputs, outputs, _ in
      layout.globalAverage(
        inputs[0], batch: batch, channels: channels, positions: positions, into: outputs[0])
    }
    return true
  }
}

/// A planned blocked pointwise convolution step without activation that a residual Add (when
/// it has none yet) or a ReLU may still be folded into.
struct FoldablePointwise {
  let step: Int
  let output: String
  let convolution: BlockedConvolution
  let input: Int
  /// The residual buffer already folded into the step.
  let residual: Int?
  let batch: Int
  let height: Int
  let width: Int
}
