import NeuralCore

/// Quantizes a graph's weights and biases once each, collecting the int8 and int32 initializers
/// and the `DequantizeLinear` nodes that read them.
struct ConstantQuantizer {
  /// The `DequantizeLinear` nodes of the quantized constants, to run before everything else.
  private(set) var nodes: [ONNXNode] = []
  /// The quantized values, scales and zero points.
  private(set) var initializers: [ONNXTensor] = []

  private let constants: [String: ONNXTensor]
  /// The weights quantized so far: their `DequantizeLinear` output, int8 values and float
  /// originals (for bias correction), by name.
  private var weights:
    [String: (output: String, values: ChannelQuantizedWeights, original: Tensor)] = [:]
  /// The biases quantized so far, by name, input scale and input channel means.
  private var biases: [BiasKey: String] = [:]

  private struct BiasKey: Hashable {
    var name: String
    var weight: String
    var inputScale: Float
    var inputMeans: [Float]?
  }

  init(graph: ONNXGraph) {
    constants = Dictionary(
      graph.initializers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The value a layer reads for its weight instead of `name`: per-channel int8 weights behind
  /// a `DequantizeLinear` along `axis`.
  mutating func weight(_ name: String, axis: Int, names: inout Names) throws(ModelFormatsError)
    -> String
  {
    if let done = weights[name] { return done.output }
    guard let tensor = constants[name] else {
      throw ModelFormatsError(.missingValue, "the weight '\(name)' is not an initializer")
    }
    let original = try tensor.floatTensor()
    let quantized = ChannelQuantizedWeights(original, axis: axis)
    let output = try append(
      base: name, values: quantized.values.map(Int64.init), type: .int8, shape: quantized.shape,
      scales: quantized.scales, zeroPointType: .int8, axis: axis,
      suffixes: ("_quantized", "_scale", "_zero_point"), names: &names)
    weights[name] = (output, quantized, original)
    return output
  }

  /// The value a layer reads for its bias instead of its third input.
  ///
  /// That is int32 values with scale `input scale * weight scale` behind a `DequantizeLinear`;
  /// `nil` when the layer has no constant bias of one value per output channel, or is a `Gemm`
  /// whose `alpha` or `beta` is not 1 (its bias is left in float). Given the means of the
  /// input's channels, the bias is first corrected for the weights' rounding
  /// (`ChannelQuantizedWeights.biasCorrection(from:inputMeans:)`).
  mutating func bias(
    of node: ONNXNode, input: AffineQuantization, inputMeans: [Float]?, names: inout Names
  ) throws(ModelFormatsError) -> String? {
    guard node.inputs.count >= 3, let tensor = constants[node.inputs[2]],
      let weight = weights[node.inputs[1]]
    else { return nil }
    if node.opType == "Gemm" {
      let alpha = node.attribute(named: "alpha")?.floatValue ?? 1
      let beta = node.attribute(named: "beta")?.floatValue ?? 1
      guard alpha == 1, beta == 1 else { return nil }
    }
    guard case .float = tensor.value, tensor.shape == [weight.values.scales.count] else {
      return nil
    }
    let key = BiasKey(
      name: tensor.name, weight: node.inputs[1], inputScale: input.scale, inputMeans: inputMeans)
    if let done = biases[key] { return done }
    var bias = try tensor.floatTensor().scalars
    if let inputMeans,
      let correction = weight.values.biasCorrection(from: weight.original, inputMeans: inputMeans)
    {
      bias = zip(bias, correction).map { $0 + $1 }
    }
    let (values, scales) = weight.values.quantizedBias(bias, inputScale: input.scale)
    let output = try append(
      base: tensor.name, values: values.map(Int64.init), type: .int32, shape: tensor.shape,
      scales: scales, zeroPointType: .int32, axis: 0,
      suffixes: ("_quantized", "_quantized_scale", "_quantized_zero_point"), names: &names)
    biases[key] = output
    return output
  }

  /// Adds quantized values, their scales and zero points (all 0) and the `DequantizeLinear`
  /// that reads them; returns its output.
  private mutating func append(
    base: String, values: [Int64], type: ONNXDataType, shape: [Int], scales: [Float],
    zeroPointType: ONNXDataType, axis: Int, suffixes: (String, String, String),
    names: inout Names
  ) throws(ModelFormatsError) -> String {
    let valuesName = names.unique(base + suffixes.0)
    let scaleName = names.unique(base + suffixes.1)
    let zeroName = names.unique(base + suffixes.2)
    let output = names.unique(base + "_DequantizeLinear_Output")
    let scaleTensor = try ModelFormatsError.converting(
      try Tensor(shape: [scales.count], scalars: scales))
    initializers += [
      ONNXTensor(name: valuesName, dataType: type, value: .integer(values, shape: shape)),
      ONNXTensor(name: scaleName, dataType: .float, value: .float(scaleTensor)),
      ONNXTensor(
        name: zeroName, dataType: zeroPointType,
        value: .integer([Int64](repeating: 0, count: scales.count), shape: [scales.count])),
    ]
    nodes.append(
      ONNXNode(
        name: names.unique(base + "_DequantizeLinear"), opType: "DequantizeLinear", domain: "",
        inputs: [valuesName, scaleName, zeroName], outputs: [output],
        attributes: [ONNXAttribute(name: "axis", value: .int(Int64(axis)))]))
    return output
  }
}
