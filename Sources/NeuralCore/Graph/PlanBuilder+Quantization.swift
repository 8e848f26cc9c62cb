extension PlanBuilder {
  // MARK: Quantize and dequantize

  /// The scales and zero points of a `QuantizeLinear`, `DequantizeLinear` or quantized
  /// operator's operand, for data of `shape`.
  ///
  /// - Parameters:
  ///   - node: The node.
  ///   - scalePosition: The scale's input position.
  ///   - zeroPointPosition: The zero point's input position, if the operator has one.
  ///   - shape: The data's shape.
  ///   - type: The quantized type when no zero point gives it.
  ///   - axis: The axis a 1-D scale runs along (the node's `axis` attribute where it has one).
  ///   - blockSize: The block size of blocked quantization, 0 for none.
  /// - Returns: The scales and zero points.
  /// - Throws: ``NeuralCoreError`` when a parameter is computed, malformed or of a type the
  ///   engine does not hold.
  func quantization(
    _ node: ImportedGraph.Node, scale scalePosition: Int, zeroPoint zeroPointPosition: Int?,
    shape: [Int], type: ElementType, axis: Int, blockSize: Int = 0
  ) throws(NeuralCoreError) -> Quantization {
    var zeroPoint: Graph.Constant?
    var zeroPointType: ElementType?
    if let position = zeroPointPosition, let value = try value(node, position) {
      guard case .constant(let constant) = value else {
        throw node.attributes.error(
          .unsupported, "zero point input \(position) must be a constant integer tensor")
      }
      zeroPoint = constant
      zeroPointType = elementType(of: node.inputs[position])
    }
    var scale: Graph.Constant?
    if case .constant(let constant)? = try value(node, scalePosition) { scale = constant }
    return try Self.quantization(
      node.attributes, scale: scale, zeroPoint: zeroPoint, zeroPointType: zeroPointType,
      shape: shape, type: type, axis: axis, blockSize: blockSize)
  }

  /// The scales and zero points of constant parameters, for data of `shape`.
  static func quantization(
    _ attributes: NodeAttributes, scale: Graph.Constant?, zeroPoint: Graph.Constant?,
    zeroPointType: ElementType?, shape: [Int], type: ElementType, axis: Int, blockSize: Int
  ) throws(NeuralCoreError) -> Quantization {
    guard case .float(let scale)? = scale else {
      throw attributes.error(.unsupported, "the scale must be a constant float tensor")
    }
    var zeroPoints = [Int32](repeating: 0, count: scale.count)
    var quantizedType = type
    if let zeroPoint {
      guard case .integer(let values, _) = zeroPoint, values.count == scale.count else {
        throw attributes.error(
          .unsupported, "the zero point must be a constant integer tensor like the scale")
      }
      quantizedType = zeroPointType ?? type
      zeroPoints = values.map { Int32(truncatingIfNeeded: $0) }
    }
    guard let range = quantizedType.integerRange else {
      throw attributes.error(.unsupported, "quantized type \(quantizedType) is not supported")
    }
    guard zeroPoints.allSatisfy({ range.contains($0) }) else {
      throw attributes.error(.invalidGraph, "a zero point is outside \(quantizedType)")
    }
    guard scale.scalars.allSatisfy({ $0.isFinite && $0 != 0 }) else {
      throw attributes.error(.invalidArgument, "a scale is zero or not finite")
    }
    let mapping = try quantizationMapping(
      attributes, scaleShape: scale.shape, shape: shape, axis: axis, blockSize: blockSize)
    return Quantization(
      scales: scale.scalars, zeroPoints: zeroPoints, type: quantizedType, mapping: mapping)
  }

  /// Whether a scale of `scaleShape` is per tensor, per axis or per block of data of `shape`.
  private static func quantizationMapping(
    _ attributes: NodeAttributes, scaleShape: [Int], shape: [Int], axis: Int, blockSize: Int
  ) throws(NeuralCoreError) -> Quantization.Mapping {
    let count = Tensor.elementCount(of: scaleShape) ?? 0
    if blockSize <= 0 && count == 1 && scaleShape.count <= 1 { return .tensor }
    let normalized = axis < 0 ? axis + shape.count : axis
    guard normalized >= 0, normalized < shape.count else {
      throw attributes.error(.shapeMismatch, "axis \(axis) for data \(shape)")
    }
    let size = shape[normalized]
    let inner = shape[(normalized + 1)...].reduce(1, *)
    if blockSize > 0 {
      let blocks = (size + blockSize - 1) / blockSize
      var expected = shape
      expected[normalized] = blocks
      guard scaleShape == expected else {
        throw attributes.error(
          .shapeMismatch, "blocked scale \(scaleShape) for data \(shape), expected \(expected)")
      }
      return .blocked(size: size, inner: max(inner, 1), blockSize: blockSize, blocks: blocks)
    }
    guard scaleShape.count == 1, count == size else {
      throw attributes.error(
        .shapeMismatch, "scale \(scaleShape) for axis \(axis) of data \(shape)")
    }
    return .axis(size: size, inner: max(inner, 1))
  }

  /// The quantization a `QuantizeLinear` or `DequantizeLinear` node states for data of
  /// `shape` of `type` (the output type of `QuantizeLinear` when neither its zero point nor its
  /// `output_dtype` gives one).
  static func linearQuantization(
    _ attributes: NodeAttributes, inputs: [Graph.Constant?], types: [ElementType],
    shape: [Int], type: ElementType
  ) throws(NeuralCoreError) -> Quantization {
    var quantizedType = type
    if attributes.node.operatorName == "QuantizeLinear",
      let declared = try attributes.int("output_dtype"), declared != 0
    {
      quantizedType = ElementType(rawValue: Int32(clamping: declared))
    }
    let zeroPoint = inputs.count > 2 ? inputs[2] : nil
    return try quantization(
      attributes, scale: inputs.count > 1 ? inputs[1] : nil, zeroPoint: zeroPoint,
      zeroPointType: zeroPoint == nil ? nil : types[2], shape: shape, type: quantizedType,
      axis: try attributes.int("axis", default: 1),
      blockSize: try attributes.int("block_size", default: 0))
  }

  /// The constant parameters (scale, zero point) of a `QuantizeLinear` or `DequantizeLinear`
  /// and their types, for planning with run-time data.
  func linearQuantization(
    _ node: ImportedGraph.Node, shape: [Int], type: ElementType
  ) throws(NeuralCoreError) -> Quantization {
    var inputs: [Graph.Constant?] = [nil]
    var types: [ElementType] = [type]
    for position in 1..<3 {
      guard let value = try value(node, position) else { break }
      guard case .constant(let constant) = value else {
        throw node.attributes.error(
          .unsupported, "input \(position) (scale or zero point) must be a constant")
      }
      inputs.append(constant)
      types.append(elementType(of: node.inputs[position]))
    }
    return try Self.linearQuantization(
      node.attributes, inputs: inputs, types: types, shape: shape, type: type)
  }

  /// Plans `QuantizeLinear`: float data to integers of the zero point's type (uint8 without
  /// one).
  mutating func planQuantizeLinear(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    if let folded = try foldedInputs(node) { return try bindFolded(node, folded) }
    let (input, shape) = try floatOperand(node, 0)
    let quantization = try linearQuantization(node, shape: shape, type: .uint8)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(node, inputs: [input], outputShapes: [shape], outputTypes: [quantization.type]) {
      inputs, outputs, _ in
      quantization.quantize(
        inputs[0], count: count, into: UnsafeMutableRawPointer(outputs[0]), kernels: kernels)
    }
  }

  /// Plans `DequantizeLinear`: integers to floats.
  mutating func planDequantizeLinear(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    if let folded = try foldedInputs(node) { return try bindFolded(node, folded) }
    let (input, shape) = try integerOperand(node, 0)
    let quantization = try linearQuantization(
      node, shape: shape, type: elementType(of: node.inputs[0]))
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(node, inputs: [input], outputShapes: [shape]) { inputs, outputs, _ in
      quantization.dequantize(
        UnsafeRawPointer(inputs[0]), count: count, into: outputs[0], kernels: kernels)
    }
  }

  /// Plans `DynamicQuantizeLinear`: uint8 data with the scale and zero point that map the
  /// range of the data (widened to include zero) onto 0...255.
  mutating func planDynamicQuantizeLinear(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let (input, shape) = try floatOperand(node, 0)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(
      node, inputs: [input], outputShapes: [shape, [], []], outputTypes: [.uint8, .float, .uint8]
    ) { inputs, outputs, _ in
      let values = UnsafeBufferPointer(start: inputs[0], count: count)
      let low = min(0, values.min() ?? 0)
      let high = max(0, values.max() ?? 0)
      let scale = (high - low) / 255
      let zeroPoint =
        scale > 0 && scale.isFinite
        ? Int32(min(max((-low / scale).rounded(.toNearestOrEven), 0), 255)) : 0
      outputs[1][0] = scale
      UnsafeMutableRawPointer(outputs[2]).storeBytes(of: zeroPoint, as: Int32.self)
      let quantization = Quantization(
        scales: [scale > 0 && scale.isFinite ? scale : 1], zeroPoints: [zeroPoint], type: .uint8,
        mapping: .tensor)
      quantization.quantize(
        inputs[0], count: count, into: UnsafeMutableRawPointer(outputs[0]), kernels: kernels)
    }
  }

  /// The values of a node whose inputs are all constants, from its entry's folder, or `nil`.
  func foldedInputs(_ node: ImportedGraph.Node) throws(NeuralCoreError) -> [OperatorEntry.Folded]? {
    guard let folder = node.entry.constantInputs else { return nil }
    var inputs: [Graph.Constant?] = []
    for name in node.inputs {
      if name.isEmpty {
        inputs.append(nil)
        continue
      }
      guard case .constant(let constant)? = values[name] else { return nil }
      inputs.append(constant)
    }
    return try folder(node.attributes, inputs, node.inputs.map { elementType(of: $0) })
  }

  /// Binds a node's outputs to values folded while planning.
  mutating func bindFolded(
    _ node: ImportedGraph.Node, _ folded: [OperatorEntry.Folded]
  ) throws(NeuralCoreError) {
    for (output, value) in zip(node.outputs, folded) where !output.isEmpty {
      values[output] = .constant(value.value)
      foldedTypes[output] = value.elementType
    }
  }

  /// An integer input as a step operand with its shape.
  mutating func integerOperand(
    _ node: ImportedGraph.Node, _ position: Int
  ) throws(NeuralCoreError) -> (operand: ExecutionPlan.Operand, shape: [Int]) {
    switch try requiredValue(node, position) {
    case .runtime(let id, let shape):
      guard bufferTypes[id].isHeldAsInteger else {
        throw node.attributes.error(
          .unsupported,
          "input '\(node.inputs[position])' is \(bufferTypes[id]), not an integer type")
      }
      return (.buffer(id), shape)
    case .constant(.integer(let values, let shape)):
      // Int32 elements in the float constant pool, bit for bit.
      let bits = values.map { Float(bitPattern: UInt32(bitPattern: Int32(truncatingIfNeeded: $0))) }
      return (intern(node.inputs[position], try Tensor(shape: shape, scalars: bits)), shape)
    case .constant(.float):
      throw node.attributes.error(
        .unsupported, "input '\(node.inputs[position])' is float, not an integer type")
    }
  }

  /// The values of a `QuantizeLinear` or `DequantizeLinear` whose inputs are all constants.
  static func foldLinearQuantization(
    _ attributes: NodeAttributes, _ inputs: [Graph.Constant?], _ types: [ElementType]
  ) throws(NeuralCoreError) -> [OperatorEntry.Folded]? {
    switch inputs.first ?? nil {
    case .float(let tensor)? where attributes.node.operatorName == "QuantizeLinear":
      let quantization = try linearQuantization(
        attributes, inputs: inputs, types: types, shape: tensor.shape, type: .uint8)
      return [
        OperatorEntry.Folded(
          value: .integer(quantization.quantize(tensor.scalars), shape: tensor.shape),
          elementType: quantization.type)
      ]
    case .integer(let integers, let shape)? where attributes.node.operatorName == "DequantizeLinear":
      let quantization = try linearQuantization(
        attributes, inputs: inputs, types: types, shape: shape, type: types[0])
      return [
        OperatorEntry.Folded(
          value: .float(try Tensor(shape: shape, scalars: quantization.dequantize(integers))),
          elementType: .float)
      ]
    default:
      throw attributes.error(.unsupported, "input 0 has the wrong element type")
    }
  }
}
