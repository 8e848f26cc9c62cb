public import NeuralCore

/// An element-wise activation as a layer (ReLU, ReLU6, sigmoid, hard swish, SiLU, ...).
public struct ActivationLayer: Layer, GraphLayer {
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

  /// Appends the activation's nodes (none for the identity).
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: Any value.
  /// - Returns: A value of the input's shape.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a constant's name is taken.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    try activation.appendNodes(to: &builder, input: input)
  }
}
