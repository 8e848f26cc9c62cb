extension PlanBuilder {
  // MARK: Parts of quantized nodes

  /// The name of an intermediate value of a quantized node, which no model value can take.
  func partName(_ node: ImportedGraph.Node, _ label: String) -> String {
    "\u{1}\(node.outputs.first ?? node.source.name)\u{1}\(label)"
  }

  /// `node` writing `output` instead of its own outputs, for steps that make its intermediates.
  func part(_ node: ImportedGraph.Node, writing output: String) -> ImportedGraph.Node {
    var part = node
    part.outputs = [output]
    return part
  }

  /// Plans a float operator of the standard domain on named values, as a part of `node`.
  mutating func planPart(
    _ node: ImportedGraph.Node, _ operatorName: String, opset: Int = 13, inputs: [String],
    output: String, attributes: [Graph.Attribute] = []
  ) throws(NeuralCoreError) {
    let source = Graph.Node(
      name: node.source.name, operatorName: operatorName, inputs: inputs, outputs: [output],
      attributes: attributes)
    let entry = try OperatorRegistry.entry(for: source, opset: opset)
    let part = ImportedGraph.Node(
      source: source, inputs: inputs, outputs: [output], opset: opset, entry: entry)
    try entry.plan(&self, part)
  }

  /// A constant float input, such as a scale.
  func floatConstant(
    _ node: ImportedGraph.Node, _ position: Int
  ) throws(NeuralCoreError) -> Tensor {
    guard case .constant(.float(let tensor))? = try value(node, position) else {
      throw node.attributes.error(
        .unsupported, "input \(position) (a scale) must be a constant float tensor")
    }
    return tensor
  }

  /// Dequantizes input `data` with the scale and zero point at the given positions into a new
  /// float value, and returns its name.
  mutating func dequantizedPart(
    _ node: ImportedGraph.Node, data: Int, scale: Int, zeroPoint: Int?, axis: Int = 1
  ) throws(NeuralCoreError) -> String {
    let name = partName(node, "dequantized\(data)")
    let value = try requiredValue(node, data)
    let quantization = try quantization(
      node, scale: scale, zeroPoint: zeroPoint, shape: value.shape,
      type: elementType(of: node.inputs[data]), axis: axis)
    if case .constant(.integer(let integers, let shape)) = value {
      values[name] = .constant(
        .float(try Tensor(shape: shape, scalars: quantization.dequantize(integers))))
      return name
    }
    let (input, shape) = try integerOperand(node, data)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(part(node, writing: name), inputs: [input], outputShapes: [shape]) {
      inputs, outputs, _ in
      quantization.dequantize(
        UnsafeRawPointer(inputs[0]), count: count, into: outputs[0], kernels: kernels)
    }
    return name
  }

  /// Quantizes the float value `name` into the node's first output with the scale and zero
  /// point at the given positions.
  mutating func quantizePart(
    _ node: ImportedGraph.Node, _ name: String, scale: Int, zeroPoint: Int?
  ) throws(NeuralCoreError) {
    guard let (source, shape) = floatSource(name) else {
      throw node.attributes.error(.unsupported, "a quantized result known before running")
    }
    let quantization = try quantization(
      node, scale: scale, zeroPoint: zeroPoint, shape: shape, type: .uint8, axis: 1)
    let count = Tensor.elementCount(of: shape) ?? 0
    let kernels = graph.kernels
    try addStep(
      node, inputs: [source], outputShapes: [shape], outputTypes: [quantization.type]
    ) { inputs, outputs, _ in
      quantization.quantize(
        inputs[0], count: count, into: UnsafeMutableRawPointer(outputs[0]), kernels: kernels)
    }
  }

  /// `data - zero point` as floats in a new value: a constant for constant data, else a step.
  ///
  /// The zero point is absent (0), one constant, one constant per index of `axis` of the data,
  /// or one computed at run time (DynamicQuantizeLinear's).
  mutating func centeredPart(
    _ node: ImportedGraph.Node, data: Int, zeroPoint: Int?, axis: Int
  ) throws(NeuralCoreError) -> String {
    let name = partName(node, "centered\(data)")
    let shape = try requiredValue(node, data).shape
    let normalized = shape.isEmpty ? 0 : try PlanBuilder.axis(axis, rank: shape.count, node)
    let inner = shape.isEmpty ? 1 : max(shape[(normalized + 1)...].reduce(1, *), 1)
    let zeroValue = try zeroPoint.flatMap { (position) throws(NeuralCoreError) in
      try value(node, position)
    }
    var zeroPoints: [Int32] = []
    switch zeroValue {
    case nil: break
    case .constant(.integer(let values, _))?:
      zeroPoints = values.map { Int32(truncatingIfNeeded: $0) }
      guard zeroPoints.count == 1 || (!shape.isEmpty && zeroPoints.count == shape[normalized])
      else {
        throw node.attributes.error(.shapeMismatch, "zero points for data \(shape)")
      }
    case .runtime(let id, let zeroShape)?:
      guard Tensor.elementCount(of: zeroShape) == 1, bufferTypes[id].isHeldAsInteger else {
        throw node.attributes.error(.unsupported, "a computed zero point must be one integer")
      }
      return try centeredByComputedZeroPoint(node, data: data, zeroPoint: id, into: name)
    case .constant(.float)?:
      throw node.attributes.error(.unsupported, "a float zero point")
    }
    if case .constant(.integer(let integers, _)) = try requiredValue(node, data) {
      let axisSize = max(zeroPoints.count, 1)
      // In float: exact for every value of the 8- to 32-bit types within 2^24, and no
      // overflow for values outside them.
      let centered = integers.enumerated().map { index, value in
        Float(value) - Float(zeroPoints.isEmpty ? 0 : zeroPoints[(index / inner) % axisSize])
      }
      values[name] = .constant(.float(try Tensor(shape: shape, scalars: centered)))
      return name
    }
    let (input, _) = try integerOperand(node, data)
    let count = Tensor.elementCount(of: shape) ?? 0
    let points = zeroPoints
    try addStep(part(node, writing: name), inputs: [input], outputShapes: [shape]) {
      inputs, outputs, _ in
      IntegerConversion.centered(
        UnsafeRawPointer(inputs[0]), count: count, zeroPoints: points, inner: inner,
        into: outputs[0])
    }
    return name
  }

  /// `data - zero point` with a zero point computed at run time.
  private mutating func centeredByComputedZeroPoint(
    _ node: ImportedGraph.Node, data: Int, zeroPoint: Int, into name: String
  ) throws(NeuralCoreError) -> String {
    let (input, shape) = try integerOperand(node, data)
    let count = Tensor.elementCount(of: shape) ?? 0
    try addStep(
      part(node, writing: name), inputs: [input, .buffer(zeroPoint)], outputShapes: [shape]
    ) { inputs, outputs, _ in
      let point = UnsafeRawPointer(inputs[1]).load(as: Int32.self)
      IntegerConversion.centered(
        UnsafeRawPointer(inputs[0]), count: count, zeroPoints: [point], inner: 1,
        into: outputs[0])
    }
    return name
  }

  /// Writes the float value `name`, integer sums, to the node's output as int32.
  mutating func integerResult(_ node: ImportedGraph.Node, _ name: String) throws(NeuralCoreError) {
    guard let (source, shape) = floatSource(name) else {
      throw node.attributes.error(.unsupported, "an integer result known before running")
    }
    let count = Tensor.elementCount(of: shape) ?? 0
    try addStep(node, inputs: [source], outputShapes: [shape], outputTypes: [.int32]) {
      inputs, outputs, _ in
      IntegerConversion.integers(inputs[0], count: count, into: UnsafeMutableRawPointer(outputs[0]))
    }
  }

  /// Requantizes the float value `name` (integer sums) into the node's output: one multiplier
  /// per index of `axis` (or one for all), the zero point and type of input `zeroPoint`.
  mutating func requantizedResult(
    _ node: ImportedGraph.Node, _ name: String, multipliers: [Float], axis: Int,
    zeroPoint position: Int?
  ) throws(NeuralCoreError) {
    guard let (source, shape) = floatSource(name) else {
      throw node.attributes.error(.unsupported, "a quantized result known before running")
    }
    var zeroPoint: Int32 = 0
    var type = ElementType.uint8
    if let position, let value = try value(node, position) {
      guard case .constant(.integer(let points, _)) = value, points.count == 1 else {
        throw node.attributes.error(.unsupported, "the output zero point must be one constant")
      }
      zeroPoint = Int32(truncatingIfNeeded: points[0])
      type = elementType(of: node.inputs[position])
    }
    guard let range = type.integerRange, range.contains(zeroPoint) else {
      throw node.attributes.error(.unsupported, "output type \(type) is not supported")
    }
    let normalized = try PlanBuilder.axis(axis, rank: shape.count, node)
    let inner = max(shape[(normalized + 1)...].reduce(1, *), 1)
    guard multipliers.count == 1 || multipliers.count == shape[normalized] else {
      throw node.attributes.error(.shapeMismatch, "\(multipliers.count) scales for \(shape)")
    }
    let count = Tensor.elementCount(of: shape) ?? 0
    let (outputZeroPoint, outputType, kernels) = (zeroPoint, type, graph.kernels)
    try addStep(node, inputs: [source], outputShapes: [shape], outputTypes: [type]) {
      inputs, outputs, _ in
      IntegerConversion.requantize(
        inputs[0], count: count, multipliers: multipliers, inner: inner,
        zeroPoint: outputZeroPoint, type: outputType, into: UnsafeMutableRawPointer(outputs[0]),
        kernels: kernels)
    }
  }

  // MARK: Integer convolutions and matrix products

  /// Plans `ConvInteger`: the convolution of `x - x_zero_point` by `w - w_zero_point` as int32.
  ///
  /// The sums are formed in float, exact while every partial sum stays within 2^24.
  mutating func planConvInteger(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let input = try centeredPart(node, data: 0, zeroPoint: 2, axis: 1)
    let weights = try centeredPart(node, data: 1, zeroPoint: 3, axis: 0)
    let sums = partName(node, "sums")
    try planPart(
      node, "Conv", inputs: [input, weights], output: sums, attributes: node.source.attributes)
    try integerResult(node, sums)
  }

  /// Plans `MatMulInteger`: `(a - a_zero_point) (b - b_zero_point)` as int32.
  mutating func planMatMulInteger(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let a = try centeredPart(node, data: 0, zeroPoint: 2, axis: -2)
    let b = try centeredPart(node, data: 1, zeroPoint: 3, axis: -1)
    let sums = partName(node, "sums")
    try planPart(node, "MatMul", inputs: [a, b], output: sums)
    try integerResult(node, sums)
  }

  /// Plans `QLinearConv`: integer sums with the bias, requantized per output channel with
  /// `x_scale * w_scale / y_scale`.
  mutating func planQLinearConv(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let input = try centeredPart(node, data: 0, zeroPoint: 2, axis: 1)
    let weights = try centeredPart(node, data: 3, zeroPoint: 5, axis: 0)
    var inputs = [input, weights]
    if let bias = try value(node, 8) {
      guard case .constant(.integer(let integers, let shape)) = bias else {
        throw node.attributes.error(.unsupported, "the bias must be a constant int32 tensor")
      }
      let name = partName(node, "bias")
      values[name] = .constant(
        .float(try Tensor(shape: shape, scalars: integers.map { Float($0) })))
      inputs.append(name)
    }
    let sums = partName(node, "sums")
    try planPart(node, "Conv", inputs: inputs, output: sums, attributes: node.source.attributes)
    let inputScale = try floatConstant(node, 1)
    let outputScale = try floatConstant(node, 6)
    let multipliers = try floatConstant(node, 4).scalars.map {
      inputScale.scalars[0] * $0 / outputScale.scalars[0]
    }
    try requantizedResult(node, sums, multipliers: multipliers, axis: 1, zeroPoint: 7)
  }

  /// Plans `QLinearMatMul`: integer sums requantized with `a_scale * b_scale / y_scale`, per
  /// column for per-column weights.
  mutating func planQLinearMatMul(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let a = try centeredPart(node, data: 0, zeroPoint: 2, axis: -2)
    let b = try centeredPart(node, data: 3, zeroPoint: 5, axis: -1)
    let sums = partName(node, "sums")
    try planPart(node, "MatMul", inputs: [a, b], output: sums)
    let aScale = try floatConstant(node, 1)
    let outputScale = try floatConstant(node, 6)
    guard aScale.count == 1, outputScale.count == 1 else {
      throw node.attributes.error(.unsupported, "per-row scales of a or y")
    }
    let multipliers = try floatConstant(node, 4).scalars.map {
      aScale.scalars[0] * $0 / outputScale.scalars[0]
    }
    try requantizedResult(node, sums, multipliers: multipliers, axis: -1, zeroPoint: 7)
  }

  // MARK: com.microsoft operators: dequantize, compute in float, quantize

  /// Plans a `com.microsoft` quantized operator as ONNX Runtime defines it: its quantized
  /// inputs dequantized, the float operator, the result quantized.
  ///
  /// - Parameters:
  ///   - node: The quantized node.
  ///   - operatorName: The float operator of the standard domain.
  ///   - opset: The float operator's version.
  ///   - operands: Each quantized input's data, scale and zero point positions.
  ///   - output: The output's scale and zero point positions.
  ///   - attributes: The float operator's attributes.
  /// - Throws: ``NeuralCoreError`` when a part cannot be planned.
  mutating func planDequantizedOperator(
    _ node: ImportedGraph.Node, _ operatorName: String, opset: Int = 13,
    operands: [(data: Int, scale: Int, zeroPoint: Int)], output: (scale: Int, zeroPoint: Int),
    attributes: [Graph.Attribute] = []
  ) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    var inputs: [String] = []
    for operand in operands {
      inputs.append(
        try dequantizedPart(
          node, data: operand.data, scale: operand.scale, zeroPoint: operand.zeroPoint))
    }
    let result = partName(node, "float")
    try planPart(
      node, operatorName, opset: opset, inputs: inputs, output: result, attributes: attributes)
    try quantizePart(node, result, scale: output.scale, zeroPoint: output.zeroPoint)
  }

  /// Plans `com.microsoft` `QGemm`: `alpha A' B' + C'` with A and B dequantized and the int32
  /// bias C at scale `a_scale * b_scale`; quantized when `y_scale` is given, float otherwise.
  mutating func planQGemm(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    try requireSingleOutput(node)
    let transposed = try node.attributes.int("transB", default: 0) != 0
    let a = try dequantizedPart(node, data: 0, scale: 1, zeroPoint: 2)
    let b = try dequantizedPart(node, data: 3, scale: 4, zeroPoint: 5, axis: transposed ? 0 : 1)
    var inputs = [a, b]
    if let bias = try value(node, 6) {
      guard case .constant(.integer(let integers, let shape)) = bias else {
        throw node.attributes.error(.unsupported, "the bias C must be a constant int32 tensor")
      }
      let aScale = try floatConstant(node, 1).scalars[0]
      let bScales = try floatConstant(node, 4).scalars
      let columns = shape.last ?? 1
      let scaled = integers.enumerated().map { index, value in
        Float(value)
          * (aScale * bScales[bScales.count == 1 ? 0 : (index % columns) % bScales.count])
      }
      let name = partName(node, "bias")
      values[name] = .constant(.float(try Tensor(shape: shape, scalars: scaled)))
      inputs.append(name)
    }
    let attributes = node.source.attributes.filter {
      ["alpha", "transA", "transB"].contains($0.name)
    }
    guard try value(node, 7) != nil else {
      try planPart(node, "Gemm", inputs: inputs, output: node.outputs[0], attributes: attributes)
      return
    }
    let result = partName(node, "float")
    try planPart(node, "Gemm", inputs: inputs, output: result, attributes: attributes)
    try quantizePart(node, result, scale: 7, zeroPoint: 8)
  }

  /// Plans `com.microsoft` `QLinearConcat`: inputs `y_scale`, `y_zero_point`, then each
  /// input's data, scale and zero point.
  mutating func planQLinearConcat(_ node: ImportedGraph.Node) throws(NeuralCoreError) {
    let count = node.inputs.count - 2
    guard count > 0, count % 3 == 0 else {
      throw node.attributes.error(.invalidGraph, "inputs must be 2 plus triples")
    }
    let operands = (0..<count / 3).map {
      (data: 2 + 3 * $0, scale: 3 + 3 * $0, zeroPoint: 4 + 3 * $0)
    }
    try planDequantizedOperator(
      node, "Concat", operands: operands, output: (0, 1),
      attributes: node.source.attributes.filter { $0.name == "axis" })
  }

  /// A float value as a step operand with its shape: a run-time buffer, or a constant (a part
  /// whose inputs were all constants, folded while planning).
  private mutating func floatSource(_ name: String) -> (ExecutionPlan.Operand, [Int])? {
    switch values[name] {
    case .runtime(let id, let shape)?: return (.buffer(id), shape)
    case .constant(.float(let tensor))?: return (intern(name, tensor), tensor.shape)
    default: return nil
    }
  }
}
