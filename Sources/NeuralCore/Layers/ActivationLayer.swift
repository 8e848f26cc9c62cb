/// An element-wise activation as a layer (ReLU, ReLU6, sigmoid, hard swish, SiLU, ...).
public struct ActivationLayer: Layer {
  /// The function applied to every element.
  public let activation: Activation

  /// Creates the layer.
  ///
  /// - Parameter activation: The function applied to every element.
  public init(_ activation: Activation) {
    self.activation = activation
  }

  /// Returns the layer unchanged: activations have no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> ActivationLayer { self }

  /// Applies the activation.
  ///
  /// - Parameters:
  ///   - input: Any tensor.
  ///   - threadCount: Unused.
  /// - Returns: A tensor of the input's shape.
  /// - Throws: Never in practice; the signature follows ``Layer``.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    try LayerSupport.map(input, to: input.shape) { source, target in
      target.update(from: source, count: input.count)
      activation.apply(target, count: input.count)
    }
  }
}
