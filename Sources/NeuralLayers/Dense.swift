public import NeuralCore

/// A fully connected layer: `[batch, inputFeatures]` to `[batch, outputFeatures]`.
///
/// Parameters follow PyTorch's `Linear`: `<name>.weight` of shape `[outputFeatures,
/// inputFeatures]` and `<name>.bias` of shape `[outputFeatures]`.
public struct Dense: Layer, GraphLayer {
  /// The module path whose parameters this layer loads, such as `_fc`.
  public let name: String
  /// Features per input row.
  public let inputFeatures: Int
  /// Features per output row.
  public let outputFeatures: Int
  /// Whether the layer has a bias parameter.
  public let hasBias: Bool
  /// The activation applied to the output.
  public let activation: Activation

  /// The loaded weight and bias; `nil` until ``loading(_:)`` (an unloaded layer writes zeros).
  private var parameters: (weight: Tensor, bias: Tensor?)?

  /// Creates a layer with zero weights; load parameters with ``loading(_:)``.
  ///
  /// - Parameters:
  ///   - name: The module path of its parameters.
  ///   - inputFeatures: Features per input row.
  ///   - outputFeatures: Features per output row.
  ///   - hasBias: Whether to load and add a bias.
  ///   - activation: The activation applied to the output.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a feature count is not
  ///   positive or the weight would have more elements than an `Int` counts.
  public init(
    name: String, inputFeatures: Int, outputFeatures: Int, hasBias: Bool = true,
    activation: Activation = .identity
  ) throws(NeuralCoreError) {
    let layer = "Dense '\(name)'"
    try LayerArguments.requirePositive(
      ["inputFeatures": inputFeatures, "outputFeatures": outputFeatures], layer: layer)
    try LayerArguments.requireElementCount([outputFeatures, inputFeatures], layer: layer)
    self.name = name
    self.inputFeatures = inputFeatures
    self.outputFeatures = outputFeatures
    self.hasBias = hasBias
    self.activation = activation
  }

  /// Returns a copy with the weight (and bias) from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded layer.
  /// - Throws: `NeuralCoreError` with code `missingValue` or `shapeMismatch`.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Dense {
    var copy = self
    copy.parameters = try ParameterLookup.weightAndBias(
      of: name, weightShape: [outputFeatures, inputFeatures],
      biasShape: hasBias ? [outputFeatures] : nil, in: stateDictionary)
    return copy
  }

  /// Appends a `Gemm` node that multiplies by the transposed weight and adds the bias, with the
  /// parameters as constants named after them, and the activation's nodes.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, inputFeatures]`.
  /// - Returns: `[batch, outputFeatures]`.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a parameter's name is
  ///   already used in the graph.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    let constants = try builder.appendParameters(
      parameters, of: name, weightShape: [outputFeatures, inputFeatures])
    let output = builder.appendNode(
      "Gemm", inputs: [input] + constants,
      attributes: [Graph.Attribute(name: "transB", value: .int(1))])
    return try activation.appendNodes(to: &builder, input: output)
  }
}
