extension PlanBuilder {
  /// Plans `Identity`: the output is the input.
  mutating func planIdentity(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try bind(node, try requiredValue(node, 0))
  }

  /// Plans `Dropout` in inference: the output is the input, the optional mask all ones.
  mutating func planDropout(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    if let training = try value(node, 2) {
      guard case .constant(let mode) = training,
        try PlanBuilder.floatTensor(mode).scalars.allSatisfy({ $0 == 0 })
      else {
        throw attributes.error(.unsupported, "training-mode dropout (random) is not supported")
      }
    }
    let input = try requiredValue(node, 0)
    try bind(node, input)
    // In inference the mask keeps every element: a constant of ones (booleans are 1 and 0).
    if node.outputs.count > 1 && !node.outputs[1].isEmpty {
      guard let count = Tensor.elementCount(of: input.shape),
        count <= PlanBuilder.maximumIndexedElements
      else { throw attributes.error(.limitExceeded, "mask of \(input.shape) is too large") }
      values[node.outputs[1]] = .constant(
        .integer([Int64](repeating: 1, count: count), shape: input.shape))
    }
  }

  /// Plans `Flatten`: the axes before `axis` and those from it joined into two.
  mutating func planFlatten(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let shape = try requiredValue(node, 0).shape
    let axis = try node.attributes.int("axis", default: 1)
    let normalized = axis < 0 ? axis + shape.count : axis
    guard normalized >= 0 && normalized <= shape.count else {
      throw node.attributes.error(.shapeMismatch, "axis \(axis) for rank \(shape.count)")
    }
    try reshape(node, to: [shape[..<normalized].reduce(1, *), shape[normalized...].reduce(1, *)])
  }

  /// Plans `Squeeze`: axes of size 1 removed (listed ones, or all), from the attribute before
  /// opset 13 and the input after.
  mutating func planSqueeze(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    let axes = node.opset < 13 ? try attributes.ints("axes") : try integers(node, 1)
    var remove = Set<Int>()
    if let axes {
      for axis in axes {
        let normalized = try PlanBuilder.axis(axis, rank: shape.count, node)
        guard shape[normalized] == 1 else {
          throw attributes.error(.shapeMismatch, "axis \(axis) of \(shape) is not 1")
        }
        remove.insert(normalized)
      }
    } else {
      remove = Set(shape.indices.filter { shape[$0] == 1 })
    }
    try reshape(node, to: shape.indices.filter { !remove.contains($0) }.map { shape[$0] })
  }

  /// Plans `Unsqueeze`: axes of size 1 inserted, from the attribute before opset 13 and the
  /// input after.
  mutating func planUnsqueeze(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    guard let axes = node.opset < 13 ? try attributes.ints("axes") : try integers(node, 1)
    else {
      throw attributes.error(.invalidGraph, "axes are required")
    }
    let rank = shape.count + axes.count
    var inserted = Set<Int>()
    for axis in axes {
      let normalized = try PlanBuilder.axis(axis, rank: rank, node)
      guard inserted.insert(normalized).inserted else {
        throw attributes.error(.invalidGraph, "axis \(axis) repeats")
      }
    }
    var remaining = shape.makeIterator()
    var output: [Int] = []
    for axis in 0..<rank {
      output.append(inserted.contains(axis) ? 1 : (remaining.next() ?? 1))
    }
    try reshape(node, to: output)
  }

  /// Plans `Shape`: the input's dimensions from `start` to `end`, folded to a constant.
  mutating func planShape(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    let rank = shape.count
    var start = try attributes.int("start", default: 0)
    var end = try attributes.int("end") ?? rank
    if start < 0 { start += rank }
    if end < 0 { end += rank }
    start = min(max(start, 0), rank)
    end = min(max(end, start), rank)
    let dimensions = shape[start..<end].map { Int64($0) }
    try bind(node, .constant(.integer(dimensions, shape: [dimensions.count])))
  }

  /// Binds the output to the input with a new shape: no copy for runtime values.
  private mutating func reshape(
    _ node: ImportedGraph.Node, to shape: [Int]
  ) throws(NeuralCoreError) {
    let input = try requiredValue(node, 0)
    guard Tensor.elementCount(of: shape) == Tensor.elementCount(of: input.shape) else {
      throw node.attributes.error(.shapeMismatch, "cannot reshape \(input.shape) to \(shape)")
    }
    switch input {
    case .runtime(let id, _):
      try bind(node, .runtime(id: id, shape: shape))
    case .constant(.float(let tensor)):
      try bind(node, .constant(.float(try Tensor(shape: shape, scalars: tensor.scalars))))
    case .constant(.integer(let values, _)):
      try bind(node, .constant(.integer(values, shape: shape)))
    }
  }

  /// Plans `Reshape`: `0` keeps a dimension (unless `allowzero`), `-1` is inferred.
  mutating func planReshape(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    guard let requested = try integers(node, 1) else {
      throw attributes.error(.invalidGraph, "shape input is required")
    }
    let allowZero = try attributes.int("allowzero", default: 0) != 0
    var output: [Int] = []
    var inferred: Int?
    for (index, dimension) in requested.enumerated() {
      if dimension == 0 && !allowZero {
        guard index < shape.count else {
          throw attributes.error(.shapeMismatch, "0 at axis \(index) beyond rank \(shape.count)")
        }
        output.append(shape[index])
      } else if dimension == -1 {
        guard inferred == nil else {
          throw attributes.error(.invalidGraph, "more than one -1 in \(requested)")
        }
        inferred = index
        output.append(1)
      } else if dimension < 0 {
        throw attributes.error(.invalidGraph, "negative dimension in \(requested)")
      } else {
        output.append(dimension)
      }
    }
    let total = Tensor.elementCount(of: shape) ?? 0
    if let inferred {
      let known = output.reduce(1, *)
      guard known > 0, total % known == 0 else {
        throw attributes.error(.shapeMismatch, "cannot reshape \(shape) to \(requested)")
      }
      output[inferred] = total / known
    }
    try reshape(node, to: output)
  }

  /// Plans `Cast` to the element type `to`.
  mutating func planCast(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    guard let target = try attributes.int("to") else {
      throw attributes.error(.invalidGraph, "'to' is required")
    }
    try cast(node, to: ElementType(rawValue: Int32(clamping: target)))
  }

  /// CastLike: a cast to the element type of the second input.
  ///
  /// Values here are float data or integer constants (their ONNX width is not kept), so the target is float or int64.
  mutating func planCastLike(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    switch try requiredValue(node, 1) {
    case .constant(.integer): try cast(node, to: .int64)
    case .runtime, .constant(.float): try cast(node, to: .float)
    }
  }

  /// Casts an integer tensor computed at run time (a quantized operator's): to float, or to
  /// the same type (a copy of the buffer's binding).
  private mutating func castInteger(
    _ node: ImportedGraph.Node, buffer id: Int, shape: [Int], to type: ElementType
  ) throws(NeuralCoreError) {
    if type == bufferTypes[id] { return try bind(node, .runtime(id: id, shape: shape)) }
    guard type == .float || type == .double else {
      throw node.attributes.error(
        .unsupported, "run-time cast of \(bufferTypes[id]) to \(type) is not supported")
    }
    let count = Tensor.elementCount(of: shape) ?? 0
    try addStep(node, inputs: [.buffer(id)], outputShapes: [shape]) { inputs, outputs, _ in
      IntegerConversion.centered(
        UnsafeRawPointer(inputs[0]), count: count, zeroPoints: [], inner: 1, into: outputs[0])
    }
  }

  /// Casts the first input.
  ///
  /// Float data stays float32: a cast to float64 (which expanded ONNX
  /// functions use for intermediate precision) is computed in float32 too. A run-time cast to
  /// an integer type rounds toward zero, and to bool gives 1 for every non-zero value (NaN
  /// included), both still held as floats.
  private mutating func cast(
    _ node: ImportedGraph.Node, to type: ElementType
  ) throws(NeuralCoreError) {
    let attributes = node.attributes
    let isFloat = type == .float || type == .double
    let isInteger = [
      ElementType.int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .bool,
    ].contains(type)
    let input = try requiredValue(node, 0)
    switch input {
    case .runtime(let id, let shape) where bufferTypes[id] != .float:
      try castInteger(node, buffer: id, shape: shape, to: type)
    case .runtime(_, let shape):
      if isFloat {
        try bind(node, input)
        return
      }
      guard isInteger else {
        throw attributes.error(.unsupported, "run-time cast to \(type) is not supported")
      }
      // Run-time booleans and integers are float tensors holding whole numbers (1 and 0 for
      // booleans), as comparisons produce them.
      let (operand, _) = try floatOperand(node, 0)
      let toBool = type == .bool
      let count = Tensor.elementCount(of: shape) ?? 0
      try addStep(node, inputs: [operand], outputShapes: [shape]) { inputs, outputs, _ in
        for index in 0..<count {
          let value = inputs[0][index]
          outputs[0][index] =
            toBool ? (value != 0 ? 1 : 0) : (value.isNaN ? 0 : value.rounded(.towardZero))
        }
      }
    case .constant(.float(let tensor)):
      if isFloat {
        try bind(node, input)
      } else if isInteger {
        let values = tensor.scalars.map { value -> Int64 in
          guard value.isFinite else { return 0 }
          if type == .bool { return value != 0 ? 1 : 0 }
          return Int64(max(min(value.rounded(.towardZero), 9.2e18), -9.2e18))
        }
        try bind(node, .constant(.integer(values, shape: tensor.shape)))
      } else {
        throw attributes.error(.unsupported, "cast to \(type) is not supported")
      }
    case .constant(.integer(let values, let shape)):
      if isFloat {
        try bind(
          node, .constant(.float(try Tensor(shape: shape, scalars: values.map { Float($0) }))))
      } else if isInteger {
        try bind(
          node,
          .constant(.integer(type == .bool ? values.map { $0 != 0 ? 1 : 0 } : values, shape: shape))
        )
      } else {
        throw attributes.error(.unsupported, "cast to \(type) is not supported")
      }
    }
  }

  /// For each output element of a selection, the flat input offset; `selections[axis]` lists the
  /// input coordinates taken along each axis.
  static func selectionOffsets(shape: [Int], selections: [[Int]]) -> [Int] {
    let strides = Layout.strides(of: shape)
    var offsets = [0]
    for axis in shape.indices {
      var next: [Int] = []
      next.reserveCapacity(offsets.count * selections[axis].count)
      for offset in offsets {
        for coordinate in selections[axis] { next.append(offset + coordinate * strides[axis]) }
      }
      offsets = next
    }
    return offsets
  }

  /// Binds the output to the selected elements: folded for constants, a gather step otherwise.
  mutating func select(
    _ node: ImportedGraph.Node, selections: [[Int]], outputShape: [Int]
  ) throws(NeuralCoreError) {
    let input = try requiredValue(node, 0)
    guard let count = Tensor.elementCount(of: outputShape), count <= PlanBuilder.maximumElements
    else {
      throw node.attributes.error(.limitExceeded, "output \(outputShape) is too large")
    }
    let offsets = PlanBuilder.selectionOffsets(shape: input.shape, selections: selections)
    switch input {
    case .constant(.integer(let values, _)):
      try bind(node, .constant(.integer(offsets.map { values[$0] }, shape: outputShape)))
    case .constant(.float(let tensor)):
      try bind(
        node,
        .constant(
          .float(try Tensor(shape: outputShape, scalars: offsets.map { tensor.scalars[$0] }))))
    case .runtime:
      let (operand, _) = try floatOperand(node, 0)
      let runs = PlanBuilder.contiguousRuns(of: offsets)
      if runs.count * 4 <= offsets.count {
        // Mostly contiguous (a Slice or Split along an outer axis): one copy per run.
        try addStep(node, inputs: [operand], outputShapes: [outputShape]) { inputs, outputs, _ in
          for run in runs {
            (outputs[0] + run.output).update(from: inputs[0] + run.input, count: run.count)
          }
        }
        return
      }
      try addStep(node, inputs: [operand], outputShapes: [outputShape]) { inputs, outputs, _ in
        for (index, offset) in offsets.enumerated() { outputs[0][index] = inputs[0][offset] }
      }
    }
  }

  /// Consecutive output elements whose input offsets are consecutive, as one copy each.
  static func contiguousRuns(of offsets: [Int]) -> [(output: Int, input: Int, count: Int)] {
    var runs: [(output: Int, input: Int, count: Int)] = []
    for (index, offset) in offsets.enumerated() {
      if let last = runs.last, last.input + last.count == offset {
        runs[runs.count - 1].count += 1
      } else {
        runs.append((index, offset, 1))
      }
    }
    return runs
  }

  /// Plans `Gather` with constant indices along `axis`.
  mutating func planGather(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let shape = try requiredValue(node, 0).shape
    let axis = try PlanBuilder.axis(
      try node.attributes.int("axis", default: 0), rank: shape.count, node)
    guard let indices = try integers(node, 1) else {
      throw node.attributes.error(.invalidGraph, "indices are required")
    }
    let indexShape = try requiredValue(node, 1).shape
    var chosen: [Int] = []
    for index in indices {
      let normalized = index < 0 ? index + shape[axis] : index
      guard normalized >= 0 && normalized < shape[axis] else {
        throw node.attributes.error(.shapeMismatch, "index \(index) outside axis of \(shape[axis])")
      }
      chosen.append(normalized)
    }
    var selections = shape.map { Array(0..<$0) }
    selections[axis] = chosen
    let outputShape = Array(shape[..<axis]) + indexShape + Array(shape[(axis + 1)...])
    try select(node, selections: selections, outputShape: outputShape)
  }

  /// Plans `Slice`: starts, ends, axes and steps from attributes before opset 10, inputs after.
  mutating func planSlice(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let attributes = node.attributes
    let shape = try requiredValue(node, 0).shape
    let starts: [Int]
    let ends: [Int]
    let axes: [Int]?
    var steps: [Int]?
    if node.opset < 10 {
      guard let attributeStarts = try attributes.ints("starts"),
        let attributeEnds = try attributes.ints("ends")
      else { throw attributes.error(.invalidGraph, "starts and ends are required") }
      starts = attributeStarts
      ends = attributeEnds
      axes = try attributes.ints("axes")
    } else {
      guard let inputStarts = try integers(node, 1), let inputEnds = try integers(node, 2) else {
        throw attributes.error(.invalidGraph, "starts and ends are required")
      }
      starts = inputStarts
      ends = inputEnds
      axes = try integers(node, 3)
      steps = try integers(node, 4)
    }
    let sliceAxes = axes ?? Array(0..<starts.count)
    let sliceSteps = steps ?? [Int](repeating: 1, count: starts.count)
    guard ends.count == starts.count, sliceAxes.count == starts.count,
      sliceSteps.count == starts.count
    else {
      throw attributes.error(.invalidGraph, "starts, ends, axes and steps differ in length")
    }
    var selections = shape.map { Array(0..<$0) }
    var seen = Set<Int>()
    for index in starts.indices {
      let axis = try PlanBuilder.axis(sliceAxes[index], rank: shape.count, node)
      guard seen.insert(axis).inserted, sliceSteps[index] != 0 else {
        throw attributes.error(.invalidGraph, "repeated axis or zero step")
      }
      let length = shape[axis]
      let step = sliceSteps[index]
      var start = starts[index] < 0 ? starts[index] + length : starts[index]
      var end = ends[index] < 0 ? ends[index] + length : ends[index]
      if step > 0 {
        start = min(max(start, 0), length)
        end = min(max(end, 0), length)
        selections[axis] = Array(stride(from: start, to: end, by: step))
      } else {
        start = min(max(start, -1), length - 1)
        end = min(max(end, -1), length - 1)
        selections[axis] = Array(stride(from: start, to: end, by: step))
      }
    }
    try select(node, selections: selections, outputShape: selections.map(\.count))
  }
}
