/// Turns an ``ImportedGraph`` into an ``ExecutionPlan`` for concrete input shapes.
///
/// Shapes are inferred node by node; integer tensors (Shape, Gather, Slice, Concat feeding a
/// Reshape) are computed here, so only float kernels remain as steps.
struct PlanBuilder {
  /// A value during planning.
  enum Value {
    case runtime(id: Int, shape: [Int])
    case constant(Graph.Constant)

    var shape: [Int] {
      switch self {
      case .runtime(_, let shape): shape
      case .constant(let constant): constant.shape
      }
    }
  }

  /// Tensors larger than this many elements (256 MiB of floats) are refused while planning,
  /// before any memory is reserved, so absurd shapes in a hostile model cannot exhaust memory.
  static let maximumElements = 1 << 26

  /// Operators that precompute one source offset per output element while planning (Where,
  /// Tile, folded comparisons) take at most this many elements, so a hostile shape cannot make
  /// the offset tables exhaust memory.
  static let maximumIndexedElements = 1 << 22

  let graph: ImportedGraph
  /// How many times each value is read (node inputs and graph outputs).
  let uses: [String: Int]
  var values: [String: Value] = [:]
  /// Values held in the blocked channel layout (NCHWxc), with their logical NCHW shapes.
  ///
  /// A value may be held in both layouts; one held only here is copied to NCHW before a node
  /// that needs NCHW reads it.
  var blockedValues: [String: (id: Int, shape: [Int])] = [:]
  /// The last planned step when it is a blocked pointwise convolution without activation,
  /// which a following residual Add can be folded into.
  var foldablePointwise: FoldablePointwise?
  var steps: [ExecutionPlan.Step] = []
  var bufferSizes: [Int] = []
  /// Each buffer's element type: float, or an integer type held as one `Int32` per element.
  var bufferTypes: [ElementType] = []
  var constants: [Float] = []
  var internedConstants: [String: Int] = [:]
  /// Quantized images held in the int8 kernels' channels-last layout; a value held only here
  /// is copied to an NCHW integer tensor before a node that needs NCHW reads it.
  var channelsLast: [String: ChannelsLastValue] = [:]
  /// The values some node's channels-last planner reads.
  let channelsLastReaders: Set<String>
  /// The element types of integer values folded while planning.
  var foldedTypes: [String: ElementType] = [:]
  var inputBuffers: [String: Int] = [:]

  init(graph: ImportedGraph, inputShapes: [String: [Int]]) throws(NeuralCoreError) {
    self.graph = graph
    uses = graph.useCounts()
    channelsLastReaders = Set(
      graph.nodes.filter { $0.entry.planChannelsLast != nil }.flatMap(\.inputs))
    for (name, constant) in graph.constants { values[name] = .constant(constant) }
    for input in graph.inputs {
      guard let shape = inputShapes[input.name] else {
        throw NeuralCoreError(.missingValue, "input '\(input.name)' was not given")
      }
      let type = graph.elementTypes[input.name].flatMap { $0.isHeldAsInteger ? $0 : nil }
      let id = try newBuffer(shape: shape, for: input.name, type: type ?? .float)
      inputBuffers[input.name] = id
      values[input.name] = .runtime(id: id, shape: shape)
    }
  }

  mutating func build() throws(NeuralCoreError) -> ExecutionPlan {
    for node in graph.nodes {
      if try planChannelsLast(node) { continue }
      try releaseChannelsLastInputs(of: node)
      try checkIntegerInputs(of: node)
      if try planBlocked(node) { continue }
      try unblockInputs(of: node)
      try plan(node)
    }
    for output in graph.outputs {
      try unblock(output.name)
      try releaseChannelsLast(output.name)
    }
    var outputs: [(name: String, value: ExecutionPlan.Output)] = []
    var keep = Set<Int>()
    for output in graph.outputs {
      switch values[output.name] {
      case .runtime(let id, let shape)?:
        keep.insert(id)
        outputs.append((output.name, .buffer(id, shape: shape)))
      case .constant(let constant)?:
        outputs.append((output.name, .constant(try PlanBuilder.floatTensor(constant))))
      case nil:
        throw NeuralCoreError(.missingValue, "graph output '\(output.name)' is never produced")
      }
    }
    let assignment = ExecutionPlan.assignOffsets(
      sizes: bufferSizes, steps: steps, inputs: Array(inputBuffers.values), keep: keep)
    return ExecutionPlan(
      steps: steps, constants: constants, bufferSizes: bufferSizes, bufferTypes: bufferTypes,
      bufferOffsets: assignment.offsets, arenaSize: assignment.arenaSize,
      inputBuffers: inputBuffers, outputs: outputs)
  }

  static func floatTensor(_ constant: Graph.Constant) throws(NeuralCoreError) -> Tensor {
    switch constant {
    case .float(let tensor): return tensor
    case .integer(let values, let shape):
      return try Tensor(shape: shape, scalars: values.map { Float($0) })
    }
  }

  /// A new buffer of one element slot (4 bytes) per element of `shape`.
  mutating func newBuffer(
    shape: [Int], for name: String, type: ElementType = .float
  ) throws(NeuralCoreError) -> Int {
    guard let count = Tensor.elementCount(of: shape), count <= PlanBuilder.maximumElements else {
      throw NeuralCoreError(
        .limitExceeded, "value '\(name)' of shape \(shape) exceeds the element limit")
    }
    bufferSizes.append(count)
    bufferTypes.append(type)
    return bufferSizes.count - 1
  }

  /// The element type of a value: its buffer's, or a constant's declared type.
  func elementType(of name: String) -> ElementType {
    if case .runtime(let id, _)? = values[name] { return bufferTypes[id] }
    if let type = foldedTypes[name] { return type }
    return ImportedGraph.elementType(of: name, graph.constants, graph.elementTypes)
  }

  /// Refuses an integer tensor computed at run time as the input of an operator that reads
  /// floats: its buffer holds `Int32` elements.
  func checkIntegerInputs(of node: ImportedGraph.Node) throws(NeuralCoreError) {
    guard !node.entry.readsIntegerTensors else { return }
    for name in node.inputs where !name.isEmpty {
      guard case .runtime(let id, _)? = values[name], bufferTypes[id] != .float else { continue }
      throw node.attributes.error(
        .unsupported,
        "\(bufferTypes[id]) tensor '\(name)' is read by \(node.source.operatorName), which runs "
          + "on floats")
    }
  }

  /// The value of a node input, or `nil` for an absent optional input.
  func value(_ node: ImportedGraph.Node, _ position: Int) throws(NeuralCoreError) -> Value? {
    guard position < node.inputs.count, !node.inputs[position].isEmpty else { return nil }
    guard let value = values[node.inputs[position]] else {
      throw node.attributes.error(
        .missingValue, "input '\(node.inputs[position])' is never produced")
    }
    return value
  }

  func requiredValue(_ node: ImportedGraph.Node, _ position: Int) throws(NeuralCoreError) -> Value {
    guard let value = try value(node, position) else {
      throw node.attributes.error(.missingValue, "required input \(position) is missing")
    }
    return value
  }

  /// A float input as a step operand with its shape.
  ///
  /// With `convertingIntegers`, an integer constant is converted to floats (for operands that
  /// ONNX lets be of another type, such as Pow's exponent); otherwise it is refused.
  mutating func floatOperand(
    _ node: ImportedGraph.Node, _ position: Int, convertingIntegers: Bool = false
  ) throws(NeuralCoreError) -> (operand: ExecutionPlan.Operand, shape: [Int]) {
    switch try requiredValue(node, position) {
    case .runtime(let id, let shape):
      guard bufferTypes[id] == .float else {
        throw node.attributes.error(
          .unsupported, "\(bufferTypes[id]) tensor '\(node.inputs[position])' used as float data")
      }
      return (.buffer(id), shape)
    case .constant(.float(let tensor)):
      return (intern(node.inputs[position], tensor), tensor.shape)
    case .constant(.integer(let values, let shape)) where convertingIntegers:
      let tensor = try Tensor(shape: shape, scalars: values.map { Float($0) })
      return (intern(node.inputs[position], tensor), shape)
    case .constant(.integer):
      throw node.attributes.error(
        .unsupported, "integer tensor '\(node.inputs[position])' used as float data")
    }
  }

  /// Copies a float constant into the plan's constant pool once per name.
  mutating func intern(_ name: String, _ tensor: Tensor) -> ExecutionPlan.Operand {
    if let offset = internedConstants[name] { return .constant(offset: offset) }
    let offset = constants.count
    constants.append(contentsOf: tensor.scalars)
    internedConstants[name] = offset
    return .constant(offset: offset)
  }

  /// An integer input known at planning time (shape, axes, pads, indices).
  func integers(_ node: ImportedGraph.Node, _ position: Int) throws(NeuralCoreError) -> [Int]? {
    guard let value = try value(node, position) else { return nil }
    guard case .constant(.integer(let values, _)) = value else {
      throw node.attributes.error(
        .unsupported, "input '\(node.inputs[position])' must be a constant integer tensor")
    }
    var result: [Int] = []
    for value in values {
      guard let integer = Int(exactly: value) else {
        throw node.attributes.error(.limitExceeded, "integer \(value) is out of range")
      }
      result.append(integer)
    }
    return result
  }

  /// Adds a step writing fresh buffers of the given shapes, binding them to the node's outputs.
  mutating func addStep(
    _ node: ImportedGraph.Node, inputs: [ExecutionPlan.Operand], outputShapes: [[Int]],
    outputTypes: [ElementType] = [],
    execute:
      @escaping @Sendable (
        _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>], _ threads: Int
      ) -> Void
  ) throws(NeuralCoreError) {
    if try fold(node, inputs: inputs, outputShapes: outputShapes, outputTypes: outputTypes, execute)
    {
      return
    }
    var ids: [Int] = []
    for (position, shape) in outputShapes.enumerated() {
      let name = position < node.outputs.count ? node.outputs[position] : node.source.name
      let type = position < outputTypes.count ? outputTypes[position] : .float
      let id = try newBuffer(shape: shape, for: name, type: type)
      ids.append(id)
      if position < node.outputs.count && !node.outputs[position].isEmpty {
        values[node.outputs[position]] = .runtime(id: id, shape: shape)
      }
    }
    steps.append(
      ExecutionPlan.Step(
        name: node.source.name, inputs: inputs, outputs: ids, execute: execute))
  }

  /// The most elements a step's outputs may have for it to run once while planning.
  static let maximumFoldedElements = 1 << 20

  /// Runs a step whose inputs are all constants once, now, and binds its float outputs as
  /// constants (as ONNX Runtime folds Swin's attention masks, computed from shapes): `false`
  /// when it has a run-time input, a non-float or unnamed output, or large outputs.
  private mutating func fold(
    _ node: ImportedGraph.Node, inputs: [ExecutionPlan.Operand], outputShapes: [[Int]],
    outputTypes: [ElementType],
    _ execute: (
      _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>], _ threads: Int
    ) -> Void
  ) throws(NeuralCoreError) -> Bool {
    var offsets: [Int] = []
    for input in inputs {
      guard case .constant(let offset) = input else { return false }
      offsets.append(offset)
    }
    let counts = outputShapes.map { Tensor.elementCount(of: $0) ?? Int.max }
    guard outputTypes.allSatisfy({ $0 == .float }), node.outputs.count == outputShapes.count,
      !node.outputs.contains(""), counts.allSatisfy({ $0 <= Self.maximumFoldedElements }),
      counts.reduce(0, +) <= Self.maximumFoldedElements
    else { return false }
    var starts: [Int] = []
    var total = 0
    for count in counts {
      starts.append(total)
      total += count
    }
    var results = [Float](repeating: 0, count: total)
    constants.withUnsafeBufferPointer { pool in
      results.withUnsafeMutableBufferPointer { flat in
        // Safety: every constant offset lies in the pool, and `flat` holds every output.
        guard let target = flat.baseAddress, offsets.isEmpty || pool.baseAddress != nil else {
          return
        }
        let sources = offsets.compactMap { offset in pool.baseAddress.map { $0 + offset } }
        execute(sources, starts.map { target + $0 }, 1)
      }
    }
    for (index, name) in node.outputs.enumerated() {
      let scalars = Array(results[starts[index]..<(starts[index] + counts[index])])
      values[name] = .constant(.float(try Tensor(shape: outputShapes[index], scalars: scalars)))
    }
    return true
  }

  /// Adds a step computing `operation(input, 0)` broadcast to `outputShape`: Expand as `x + 0`,
  /// Not as `x == 0`.
  mutating func addStepAgainstZero(
    _ node: ImportedGraph.Node, _ operation: Elementwise.Operation,
    input: ExecutionPlan.Operand, inputShape: [Int], outputShape: [Int]
  ) throws(NeuralCoreError) {
    let kernels = graph.kernels.native
    try addStep(node, inputs: [input], outputShapes: [outputShape]) { inputs, outputs, _ in
      var zero: Float = 0
      Elementwise.run(
        operation, a: inputs[0], aShape: inputShape, b: &zero, bShape: [], output: outputs[0],
        outputShape: outputShape, kernels: kernels)
    }
  }

  /// Binds the node's first output to a value without a step (reshapes, identities, folds).
  mutating func bind(_ node: ImportedGraph.Node, _ value: Value) throws(NeuralCoreError) {
    guard let output = node.outputs.first, !output.isEmpty else {
      throw node.attributes.error(.invalidGraph, "node has no output")
    }
    values[output] = value
  }

  /// Refuses outputs beyond the first that the model actually uses.
  func requireSingleOutput(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    if node.outputs.dropFirst().contains(where: { !$0.isEmpty }) {
      throw node.attributes.error(.unsupported, "only the first output is supported")
    }
  }

  /// Normalizes a possibly negative axis against a rank.
  static func axis(
    _ axis: Int, rank: Int, _ node: ImportedGraph.Node
  ) throws(NeuralCoreError) -> Int {
    let normalized = axis < 0 ? axis + rank : axis
    guard normalized >= 0 && normalized < max(rank, 1) else {
      throw node.attributes.error(.shapeMismatch, "axis \(axis) is out of range for rank \(rank)")
    }
    return normalized
  }
}
