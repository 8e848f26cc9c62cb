import ModelFormats
import NeuralCore

/// Writes a network of layers as ONNX nodes, with its parameters as initializers, so that an
/// `InferenceSession` can plan it once: fused kernels, the blocked channel layout and one
/// memory plan instead of a tensor allocated per layer call.
///
/// It knows the layers EfficientNet-Lite is built from: `Sequential`, `Residual`,
/// ``FoldedConvolution`` (its normalization folded while writing), `GlobalAveragePool`,
/// `Flatten` and `Dense`. Parameters come from the state dictionary, so the layers need not be
/// loaded.
struct LayerGraphWriter {
  /// The opset the nodes follow (Clip takes its bounds as inputs from 11 on).
  static let opset: Int64 = 13

  private let parameters: [String: Tensor]
  private(set) var nodes: [ONNXNode] = []
  private(set) var initializers: [ONNXTensor] = []
  private var counter = 0

  init(parameters: [String: Tensor]) {
    self.parameters = parameters
  }

  /// Writes `layer` applied to the value `input` and returns the name of its output value.
  mutating func write(_ layer: any Layer, input: String) throws(NeuralCoreError) -> String {
    switch layer {
    case let sequence as Sequential:
      var value = input
      for inner in sequence.layers { value = try write(inner, input: value) }
      return value
    case let residual as Residual:
      let branch = try write(residual.body, input: input)
      return node("Add", [input, branch])
    case let convolution as FoldedConvolution:
      return try write(convolution, input: input)
    case is GlobalAveragePool:
      return node("GlobalAveragePool", [input])
    case is Flatten:
      return node("Flatten", [input], [ONNXAttribute(name: "axis", value: .int(1))])
    case let dense as Dense:
      return try write(dense, input: input)
    default:
      throw NeuralCoreError(.unsupported, "no graph form for the layer \(type(of: layer))")
    }
  }

  private mutating func write(
    _ layer: FoldedConvolution, input: String
  ) throws(NeuralCoreError) -> String {
    let convolution = layer.convolution
    let (weight, bias) = try layer.folded(parameters)
    guard convolution.padding == .same else {
      throw NeuralCoreError(.unsupported, "'\(convolution.name)': only SAME padding is written")
    }
    let output = node(
      "Conv",
      [
        input, constant("\(convolution.name).weight", weight),
        constant("\(convolution.name).bias", bias),
      ],
      [
        ONNXAttribute(
          name: "kernel_shape",
          value: .ints([Int64(convolution.kernelSize.height), Int64(convolution.kernelSize.width)])),
        ONNXAttribute(
          name: "strides",
          value: .ints([Int64(convolution.stride.y), Int64(convolution.stride.x)])),
        ONNXAttribute(
          name: "dilations",
          value: .ints([Int64(convolution.dilation.y), Int64(convolution.dilation.x)])),
        ONNXAttribute(name: "group", value: .int(Int64(convolution.groups))),
        ONNXAttribute(name: "auto_pad", value: .string("SAME_UPPER")),
      ])
    return try activation(convolution.activation, input: output)
  }

  private mutating func write(_ dense: Dense, input: String) throws(NeuralCoreError) -> String {
    let weight = try parameter(
      "\(dense.name).weight", shape: [dense.outputFeatures, dense.inputFeatures])
    var inputs = [input, constant("\(dense.name).weight", weight)]
    if dense.hasBias {
      inputs.append(
        constant(
          "\(dense.name).bias", try parameter("\(dense.name).bias", shape: [dense.outputFeatures])))
    }
    let output = node("Gemm", inputs, [ONNXAttribute(name: "transB", value: .int(1))])
    return try activation(dense.activation, input: output)
  }

  private mutating func activation(
    _ activation: Activation, input: String
  ) throws(NeuralCoreError) -> String {
    switch activation {
    case .identity:
      return input
    case .relu:
      return node("Relu", [input])
    case .clip(let low, let high):
      return node(
        "Clip",
        [
          input, constant(nil, try Tensor(shape: [], scalars: [low])),
          constant(nil, try Tensor(shape: [], scalars: [high])),
        ])
    case .sigmoid:
      return node("Sigmoid", [input])
    case .hardSigmoid(let alpha, let beta):
      return node(
        "HardSigmoid", [input],
        [
          ONNXAttribute(name: "alpha", value: .float(alpha)),
          ONNXAttribute(name: "beta", value: .float(beta)),
        ])
    case .hardSwish:
      return node("HardSwish", [input])
    case .silu:
      return node("Mul", [input, node("Sigmoid", [input])])
    }
  }

  /// Appends a node with one output and returns the output's name.
  private mutating func node(
    _ operation: String, _ inputs: [String], _ attributes: [ONNXAttribute] = []
  ) -> String {
    counter += 1
    let output = "\(operation.lowercased())_\(counter)"
    nodes.append(
      ONNXNode(
        name: output, opType: operation, domain: "", inputs: inputs, outputs: [output],
        attributes: attributes))
    return output
  }

  /// Adds an initializer (named after the parameter, or numbered) and returns its name.
  private mutating func constant(_ name: String?, _ tensor: Tensor) -> String {
    counter += 1
    let name = name ?? "constant_\(counter)"
    initializers.append(ONNXTensor(name: name, dataType: .float, value: .float(tensor)))
    return name
  }

  private func parameter(_ name: String, shape: [Int]) throws(NeuralCoreError) -> Tensor {
    guard let tensor = parameters[name] else {
      throw NeuralCoreError(.missingValue, "parameter '\(name)' is not in the state dictionary")
    }
    guard tensor.shape == shape else {
      throw NeuralCoreError(
        .shapeMismatch, "parameter '\(name)' has shape \(tensor.shape), expected \(shape)")
    }
    return tensor
  }
}
