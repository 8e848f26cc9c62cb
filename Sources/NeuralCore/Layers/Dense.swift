/// A fully connected layer: `[batch, inputFeatures]` to `[batch, outputFeatures]`.
///
/// Parameters follow PyTorch's `Linear`: `<name>.weight` of shape `[outputFeatures,
/// inputFeatures]` and `<name>.bias` of shape `[outputFeatures]`.
public struct Dense: Layer {
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

  /// The weight transposed to `[inputFeatures, outputFeatures]`, so the product streams its
  /// rows contiguously.
  private var transposedWeight: [Float]
  private var bias: [Float]

  /// Creates a layer with zero weights; load parameters with ``loading(_:)``.
  ///
  /// - Parameters:
  ///   - name: The module path of its parameters.
  ///   - inputFeatures: Features per input row.
  ///   - outputFeatures: Features per output row.
  ///   - hasBias: Whether to load and add a bias.
  ///   - activation: The activation applied to the output.
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument` when a feature count is not
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
    transposedWeight = [Float](repeating: 0, count: inputFeatures * outputFeatures)
    bias = [Float](repeating: 0, count: outputFeatures)
  }

  /// Returns a copy with the weight (and bias) from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded layer.
  /// - Throws: ``NeuralCoreError`` with code `missingValue` or `shapeMismatch`; `unsupported`
  ///   when `VISION_CATALOG_KERNELS` asks for a kernel set this CPU lacks.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Dense {
    _ = try KernelSet.selected()
    var copy = self
    let weight =
      try ParameterLookup.parameter(
        ParameterLookup.name(name, "weight"), shape: [outputFeatures, inputFeatures],
        in: stateDictionary
      ).scalars
    for output in 0..<outputFeatures {
      for input in 0..<inputFeatures {
        copy.transposedWeight[input * outputFeatures + output] =
          weight[output * inputFeatures + input]
      }
    }
    if hasBias {
      copy.bias =
        try ParameterLookup.parameter(
          ParameterLookup.name(name, "bias"), shape: [outputFeatures], in: stateDictionary
        ).scalars
    }
    return copy
  }

  /// Multiplies each input row by the transposed weight and adds the bias.
  ///
  /// - Parameters:
  ///   - input: `[batch, inputFeatures]`.
  ///   - threadCount: The number of threads to use.
  /// - Returns: `[batch, outputFeatures]`.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the input does not fit.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    guard input.rank == 2, input.shape[1] == inputFeatures else {
      throw NeuralCoreError(
        .shapeMismatch,
        "Dense '\(name)' expects [batch, \(inputFeatures)], got \(input.shape)")
    }
    let batch = input.shape[0]
    let (outputs, inputs) = (outputFeatures, inputFeatures)
    // The initializer and loading(_:) size both from the feature counts; GEMM trusts them.
    precondition(
      transposedWeight.count == inputs * outputs && bias.count == outputs,
      "Dense parameters do not match the feature counts")
    return try LayerSupport.map(input, to: [batch, outputs]) { source, target in
      transposedWeight.withUnsafeBufferPointer { weightBuffer in
        bias.withUnsafeBufferPointer { biasBuffer in
          // Safety: the transposed weight is inputs x outputs and bias outputs floats.
          guard let weights = weightBuffer.baseAddress, let biases = biasBuffer.baseAddress
          else { return }
          GEMM.multiplyStrided(
            rows: batch, columns: outputs, depth: inputs, a: source, aRowStride: inputs,
            aColumnStride: 1, b: weights, bRowStride: outputs, bColumnStride: 1, alpha: 1,
            c: target, ldc: outputs, accumulates: false, threads: threadCount)
          for row in 0..<batch {
            let line = target + row * outputs
            for feature in 0..<outputs { line[feature] += biases[feature] }
            activation.apply(line, count: outputs)
          }
        }
      }
    }
  }
}
