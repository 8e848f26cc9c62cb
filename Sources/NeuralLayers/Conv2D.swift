public import NeuralCore

/// A 2-D convolution layer with optional bias and fused activation.
///
/// Parameters: `<name>.weight` of shape `[outputChannels, inputChannels / groups, kernelHeight,
/// kernelWidth]` and, with a bias, `<name>.bias` of shape `[outputChannels]`.
public struct Conv2D: Layer, GraphLayer {
  /// The module path whose parameters this layer loads, such as `_conv_stem`.
  public let name: String
  /// Input channels.
  public let inputChannels: Int
  /// Output channels (filters).
  public let outputChannels: Int
  /// Kernel size as height and width.
  public let kernelSize: (height: Int, width: Int)
  /// Step between windows along y and x.
  public let stride: (y: Int, x: Int)
  /// Spacing between kernel taps along y and x.
  public let dilation: (y: Int, x: Int)
  /// How the input is padded.
  public let padding: Padding
  /// Channel groups; equal to the channel count for a depthwise convolution.
  public let groups: Int
  /// Whether the layer has a bias parameter.
  public let hasBias: Bool
  /// The activation applied to the output.
  public let activation: Activation

  /// The loaded weight and bias; `nil` until ``loading(_:)``, so building a network's structure
  /// allocates nothing (an unloaded layer writes zero weights).
  private var parameters: (weight: Tensor, bias: Tensor?)?

  /// Creates a convolution with zero weights; load parameters with ``loading(_:)``.
  ///
  /// - Parameters:
  ///   - name: The module path of its parameters.
  ///   - inputChannels: Input channels.
  ///   - outputChannels: Output channels.
  ///   - kernelSize: Square kernel size.
  ///   - stride: Step between windows, both axes.
  ///   - dilation: Spacing between taps, both axes.
  ///   - padding: How the input is padded; `.same` is TensorFlow's SAME.
  ///   - groups: Channel groups (both channel counts must divide by it).
  ///   - hasBias: Whether to load and add a bias.
  ///   - activation: The activation fused into the output.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a count, size, stride or
  ///   dilation is not positive, a padding amount is negative, a channel count does not divide
  ///   by `groups`, or the weight would have more elements than an `Int` counts.
  public init(
    name: String, inputChannels: Int, outputChannels: Int, kernelSize: Int, stride: Int = 1,
    dilation: Int = 1, padding: Padding = .valid, groups: Int = 1, hasBias: Bool = true,
    activation: Activation = .identity
  ) throws(NeuralCoreError) {
    let layer = "Conv2D '\(name)'"
    try LayerArguments.requirePositive(
      ["inputChannels": inputChannels, "outputChannels": outputChannels, "groups": groups],
      layer: layer)
    try LayerArguments.requirePositive(
      ["kernelSize": kernelSize, "stride": stride, "dilation": dilation], layer: layer,
      bounded: true)
    try LayerArguments.requireValid(padding, layer: layer)
    guard inputChannels % groups == 0, outputChannels % groups == 0 else {
      throw NeuralCoreError(
        .invalidArgument,
        "\(layer): inputChannels \(inputChannels) and outputChannels \(outputChannels) must "
          + "both divide by groups \(groups)")
    }
    try LayerArguments.requireElementCount(
      [outputChannels, inputChannels / groups, kernelSize, kernelSize], layer: layer)
    self.name = name
    self.inputChannels = inputChannels
    self.outputChannels = outputChannels
    self.kernelSize = (kernelSize, kernelSize)
    self.stride = (stride, stride)
    self.dilation = (dilation, dilation)
    self.padding = padding
    self.groups = groups
    self.hasBias = hasBias
    self.activation = activation
  }

  /// The expected shape of `<name>.weight`.
  public var weightShape: [Int] {
    [outputChannels, inputChannels / groups, kernelSize.height, kernelSize.width]
  }

  /// Returns a copy with the weight (and bias) from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded layer.
  /// - Throws: `NeuralCoreError` with code `missingValue` or `shapeMismatch`.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Conv2D {
    var copy = self
    copy.parameters = try ParameterLookup.weightAndBias(
      of: name, weightShape: weightShape, biasShape: hasBias ? [outputChannels] : nil,
      in: stateDictionary)
    return copy
  }

  /// Appends a `Conv` node, with the weight and bias as constants named after the parameters,
  /// and the activation's nodes.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, inputChannels, height, width]`.
  /// - Returns: `[batch, outputChannels, outputHeight, outputWidth]`.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a parameter's name is
  ///   already used in the graph.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    let constants = try builder.appendParameters(
      parameters, of: name, weightShape: weightShape)
    let output = builder.appendNode("Conv", inputs: [input] + constants, attributes: attributes)
    return try activation.appendNodes(to: &builder, input: output)
  }

  /// The `Conv` node's attributes, padding last.
  private var attributes: [Graph.Attribute] {
    let pairs: KeyValuePairs<String, (Int, Int)> = [
      "kernel_shape": (kernelSize.height, kernelSize.width), "strides": (stride.y, stride.x),
      "dilations": (dilation.y, dilation.x),
    ]
    return pairs.map {
      Graph.Attribute(name: $0.key, value: .ints([Int64($0.value.0), Int64($0.value.1)]))
    }
      + [Graph.Attribute(name: "group", value: .int(Int64(groups)))] + padding.attributes
  }
}
