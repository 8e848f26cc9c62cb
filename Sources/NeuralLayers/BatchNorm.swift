public import NeuralCore

/// Inference-mode batch normalization over the channel axis of `[batch, channels, ...]` tensors.
///
/// Parameters: `<name>.weight`, `<name>.bias`, `<name>.running_mean` and `<name>.running_var`,
/// each `[channels]`. Computes `(x - mean) / sqrt(var + epsilon) * weight + bias`.
public struct BatchNorm: Layer, GraphLayer {
  /// The module path whose parameters this layer loads, such as `_bn0`.
  public let name: String
  /// The number of channels.
  public let channels: Int
  /// Added to the variance before the square root.
  public let epsilon: Float
  /// The per-channel multiplier after folding the four parameters.
  public private(set) var scale: [Float]
  /// The per-channel offset after folding the four parameters.
  public private(set) var shift: [Float]

  /// Creates an identity normalization; load parameters with ``loading(_:)``.
  ///
  /// - Parameters:
  ///   - name: The module path of its parameters.
  ///   - channels: The number of channels.
  ///   - epsilon: Added to the variance (EfficientNet-Lite uses 1e-3, PyTorch's default 1e-5).
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when `channels` is not positive.
  public init(name: String, channels: Int, epsilon: Float = 1e-5) throws(NeuralCoreError) {
    try LayerArguments.requirePositive(["channels": channels], layer: "BatchNorm '\(name)'")
    self.name = name
    self.channels = channels
    self.epsilon = epsilon
    scale = [Float](repeating: 1, count: channels)
    shift = [Float](repeating: 0, count: channels)
  }

  /// Returns a copy with its statistics and affine parameters from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded layer.
  /// - Throws: `NeuralCoreError` with code `missingValue` or `shapeMismatch`.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> BatchNorm {
    var values: [[Float]] = []
    for parameter in ["weight", "bias", "running_mean", "running_var"] {
      values.append(
        try ParameterLookup.parameter(
          ParameterLookup.name(name, parameter), shape: [channels], in: stateDictionary
        ).scalars)
    }
    var copy = self
    for channel in 0..<channels {
      let factor = values[0][channel] / (values[3][channel] + epsilon).squareRoot()
      copy.scale[channel] = factor
      copy.shift[channel] = values[1][channel] - values[2][channel] * factor
    }
    return copy
  }

  /// Appends a `BatchNormalization` node whose scale and bias are the folded ``scale`` and
  /// ``shift``, over a zero mean and a unit variance.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, channels, ...]`.
  /// - Returns: A value of the input's shape.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a constant's name is taken.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    var inputs = [input]
    let zeros = [Float](repeating: 0, count: channels)
    let ones = [Float](repeating: 1, count: channels)
    for values in [scale, shift, zeros, ones] {
      inputs.append(try builder.appendConstant(try Tensor(shape: [channels], scalars: values)))
    }
    return builder.appendNode(
      "BatchNormalization", inputs: inputs,
      attributes: [Graph.Attribute(name: "epsilon", value: .float(0))])
  }
}
