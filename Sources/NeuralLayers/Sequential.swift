public import NeuralCore

/// Layers applied one after another.
public struct Sequential: Layer, GraphLayer {
  /// The layers, first applied first.
  public let layers: [any Layer]

  /// Creates a sequence.
  ///
  /// - Parameter layers: The layers, first applied first.
  public init(_ layers: [any Layer]) {
    self.layers = layers
  }

  /// Creates a sequence.
  ///
  /// - Parameter layers: The layers, first applied first.
  public init(_ layers: any Layer...) {
    self.layers = layers
  }

  /// Returns a copy with every layer's parameters loaded from the same state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded sequence.
  /// - Throws: The first layer's `NeuralCoreError` (`missingValue` or `shapeMismatch`).
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Sequential {
    var loaded: [any Layer] = []
    for layer in layers { loaded.append(try layer.loading(stateDictionary)) }
    return Sequential(loaded)
  }

  /// Appends each layer's nodes, each reading the previous one's output.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: The first layer's input.
  /// - Returns: The last layer's output.
  /// - Throws: The first failing layer's `NeuralCoreError`.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    var value = input
    for layer in layers { value = try layer.appendLayerNodes(to: &builder, input: value) }
    return value
  }
}

/// A residual block: `input + body(input)`, as in ResNet and EfficientNet's MBConv blocks.
public struct Residual: Layer, GraphLayer {
  /// The branch whose output is added to the input.
  public let body: any Layer

  /// Creates a residual block.
  ///
  /// - Parameter body: The branch; its output must have the input's shape.
  public init(_ body: any Layer) {
    self.body = body
  }

  /// Returns a copy with the body's parameters loaded.
  ///
  /// - Parameter stateDictionary: Parameters by full name.
  /// - Returns: The loaded block.
  /// - Throws: The body's `NeuralCoreError`.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Residual {
    Residual(try body.loading(stateDictionary))
  }

  /// Appends the body's nodes and an `Add` of its output to the input.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: The block input.
  /// - Returns: `input + body(input)`; the body must keep the input's shape.
  /// - Throws: The body's `NeuralCoreError`.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    let branch = try body.appendLayerNodes(to: &builder, input: input)
    return builder.appendNode("Add", inputs: [input, branch])
  }
}
