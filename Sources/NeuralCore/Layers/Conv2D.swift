/// A 2-D convolution layer with optional bias and fused activation.
///
/// Parameters: `<name>.weight` of shape `[outputChannels, inputChannels / groups, kernelHeight,
/// kernelWidth]` and, with a bias, `<name>.bias` of shape `[outputChannels]`.
public struct Conv2D: Layer {
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

  /// The packed loaded weights; `nil` until ``loading(_:)``, so building a network's structure
  /// packs nothing (an unloaded layer still computes with zero weights).
  private var kernel: Convolution?

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
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument` when a count, size, stride or
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
  /// - Throws: ``NeuralCoreError`` with code `missingValue` or `shapeMismatch`; `unsupported`
  ///   when `VISION_CATALOG_KERNELS` asks for a kernel set this CPU lacks.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Conv2D {
    _ = try KernelSet.selected()
    let weight = try ParameterLookup.parameter(
      ParameterLookup.name(name, "weight"), shape: weightShape, in: stateDictionary)
    let bias =
      hasBias
      ? try ParameterLookup.parameter(
        ParameterLookup.name(name, "bias"), shape: [outputChannels], in: stateDictionary) : nil
    return loading(weight: weight.scalars, bias: bias?.scalars)
  }

  private func loading(weight: [Float], bias: [Float]?) -> Conv2D {
    var copy = self
    copy.kernel = packed(weight: weight, bias: bias)
    return copy
  }

  private func packed(weight: [Float], bias: [Float]?) -> Convolution {
    Convolution(
      weights: weight, bias: bias, outputChannels: outputChannels, inputChannels: inputChannels,
      groups: groups,
      window: Window(kernelHeight: kernelSize.height, kernelWidth: kernelSize.width),
      activation: activation)
  }

  /// Applies the convolution.
  ///
  /// - Parameters:
  ///   - input: `[batch, inputChannels, height, width]`.
  ///   - threadCount: The number of threads to use.
  /// - Returns: `[batch, outputChannels, outputHeight, outputWidth]`.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the input does not fit.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    let (batch, height, width) = try LayerSupport.imageShape(
      input, channels: inputChannels, layer: "Conv2D '\(name)'")
    let window = padding.window(
      kernel: kernelSize, stride: stride, dilation: dilation, height: height, width: width)
    guard let size = window.outputSize(height: height, width: width) else {
      throw NeuralCoreError(
        .shapeMismatch, "Conv2D '\(name)': kernel larger than the padded input \(input.shape)")
    }
    let loaded =
      kernel ?? packed(weight: [Float](repeating: 0, count: weightShape.reduce(1, *)), bias: nil)
    let convolution = loaded.with(window: window)
    return try LayerSupport.map(
      input, to: [batch, outputChannels, size.height, size.width]
    ) { source, target in
      convolution.run(
        input: source, batch: batch, height: height, width: width, output: target,
        threads: threadCount)
    }
  }
}
