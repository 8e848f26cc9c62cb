/// Layers applied one after another.
public struct Sequential: Layer {
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
  /// - Throws: The first layer's ``NeuralCoreError`` (`missingValue` or `shapeMismatch`).
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Sequential {
    var loaded: [any Layer] = []
    for layer in layers { loaded.append(try layer.loading(stateDictionary)) }
    return Sequential(loaded)
  }

  /// Applies each layer to the previous one's output.
  ///
  /// - Parameters:
  ///   - input: The first layer's input.
  ///   - threadCount: The number of threads each layer may use.
  /// - Returns: The last layer's output.
  /// - Throws: The first failing layer's ``NeuralCoreError``.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    var value = input
    for layer in layers { value = try layer.forward(value, threadCount: threadCount) }
    return value
  }
}

/// A residual block: `input + body(input)`, as in ResNet and EfficientNet's MBConv blocks.
public struct Residual: Layer {
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
  /// - Throws: The body's ``NeuralCoreError``.
  public func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Residual {
    Residual(try body.loading(stateDictionary))
  }

  /// Adds the body's output to the input.
  ///
  /// - Parameters:
  ///   - input: The block input.
  ///   - threadCount: The number of threads the body may use.
  /// - Returns: `input + body(input)`.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the body changes the shape.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    let branch = try body.forward(input, threadCount: threadCount)
    guard branch.shape == input.shape else {
      throw NeuralCoreError(
        .shapeMismatch, "residual branch output \(branch.shape) differs from input \(input.shape)")
    }
    return try LayerSupport.map(input, to: input.shape) { source, target in
      branch.scalars.withUnsafeBufferPointer { addend in
        // Safety: both tensors have the same shape, so the same element count as `target`.
        guard let other = addend.baseAddress else { return }
        Elementwise.run(
          .add, a: source, aShape: input.shape, b: other, bShape: input.shape, output: target,
          outputShape: input.shape)
      }
    }
  }
}
