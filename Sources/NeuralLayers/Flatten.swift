public import NeuralCore

/// Flattens every axis after the first: `[batch, d1, d2, ...]` to `[batch, d1 * d2 * ...]`.
public struct Flatten: Layer, GraphLayer {
  /// Creates the layer.
  public init() {}

  /// Returns the layer unchanged: it has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> Flatten { self }

  /// Appends a `Flatten` node at axis 1.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: A value of rank 1 or more.
  /// - Returns: `[batch, features]`.
  package func appendNodes(to builder: inout Graph.Builder, input: String) -> String {
    builder.appendNode(
      "Flatten", inputs: [input], attributes: [Graph.Attribute(name: "axis", value: .int(1))])
  }
}
