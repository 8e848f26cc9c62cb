import NeuralCore
import NeuralLayers

/// A bias-free convolution followed by inference-mode batch normalization, folded into one
/// convolution with a bias when the parameters are loaded.
///
/// Folding `(conv(x) - mean) / sqrt(var + epsilon) * gamma + beta` into the weights saves a full
/// pass over every activation; the fused activation (ReLU6 here) then runs inside the
/// convolution's output loop.
struct FoldedConvolution: Layer, GraphLayer {
  /// The module path of the batch normalization whose parameters are folded in.
  let normalizationName: String
  /// The normalization's variance epsilon.
  let epsilon: Float
  /// The convolution; its `<name>.bias` is produced by folding, not read from the checkpoint.
  private(set) var convolution: Conv2D

  init(
    _ name: String, normalization: String, inputChannels: Int, outputChannels: Int,
    kernelSize: Int, stride: Int = 1, groups: Int = 1, activation: Activation, epsilon: Float
  ) throws(NeuralCoreError) {
    normalizationName = normalization
    self.epsilon = epsilon
    convolution = try Conv2D(
      name: name, inputChannels: inputChannels, outputChannels: outputChannels,
      kernelSize: kernelSize, stride: stride, padding: .same, groups: groups, hasBias: true,
      activation: activation)
  }

  func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> FoldedConvolution {
    let name = convolution.name
    let (weight, bias) = try folded(stateDictionary)
    var copy = self
    copy.convolution = try convolution.loading(["\(name).weight": weight, "\(name).bias": bias])
    return copy
  }

  /// The convolution's weight with the normalization folded in, and the bias that folding
  /// produces, read from a state dictionary.
  private func folded(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> (
    weight: Tensor, bias: Tensor
  ) {
    let name = convolution.name
    let channels = convolution.outputChannels
    let weight = try Self.parameter("\(name).weight", count: nil, in: stateDictionary)
    guard weight.shape == convolution.weightShape else {
      throw NeuralCoreError(
        .shapeMismatch,
        "parameter '\(name).weight' has shape \(weight.shape), expected \(convolution.weightShape)")
    }
    var statistics: [[Float]] = []
    for parameter in ["weight", "bias", "running_mean", "running_var"] {
      statistics.append(
        try Self.parameter(
          "\(normalizationName).\(parameter)", count: channels, in: stateDictionary
        )
        .scalars)
    }
    let (gamma, beta, mean, variance) = (statistics[0], statistics[1], statistics[2], statistics[3])
    let perChannel = weight.count / channels
    var folded = weight.scalars
    var bias = [Float](repeating: 0, count: channels)
    for channel in 0..<channels {
      // Double precision keeps the folded weights within an ulp of the unfolded computation.
      let factor =
        Double(gamma[channel]) / (Double(variance[channel]) + Double(epsilon)).squareRoot()
      guard factor.isFinite else {
        throw NeuralCoreError(
          .invalidArgument, "'\(normalizationName)' channel \(channel) has a non-finite scale")
      }
      for index in (channel * perChannel)..<((channel + 1) * perChannel) {
        folded[index] = Float(Double(folded[index]) * factor)
      }
      bias[channel] = Float(Double(beta[channel]) - Double(mean[channel]) * factor)
    }
    return (
      try Tensor(shape: weight.shape, scalars: folded), try Tensor(shape: [channels], scalars: bias)
    )
  }

  /// Appends the loaded convolution's nodes: its weight and bias are the folded ones.
  func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    try convolution.appendNodes(to: &builder, input: input)
  }

  private static func parameter(
    _ name: String, count: Int?, in dictionary: [String: Tensor]
  ) throws(NeuralCoreError) -> Tensor {
    guard let tensor = dictionary[name] else {
      throw NeuralCoreError(.missingValue, "parameter '\(name)' is not in the state dictionary")
    }
    if let count, tensor.count != count || tensor.rank != 1 {
      throw NeuralCoreError(
        .shapeMismatch, "parameter '\(name)' has shape \(tensor.shape), expected [\(count)]")
    }
    return tensor
  }
}
