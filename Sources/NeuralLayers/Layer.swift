public import NeuralCore

/// A stage of a network built in Swift: takes its parameters by name from a state dictionary.
///
/// Layers are values. Build the network's structure with parameter names matching the
/// checkpoint (PyTorch module paths such as `_blocks.3._depthwise_conv`), then call
/// ``loading(_:)`` with the state dictionary to get a copy that holds the trained parameters.
/// A layer has no compute code of its own: it describes itself as nodes of the engine's graph,
/// and ``forward(_:threadCount:)`` runs those nodes with an `InferenceSession`. The graph is
/// not public API, so the layers of this package (composed with ``Sequential`` and
/// ``Residual``) are the only conforming types.
public protocol Layer: Sendable {
  /// Returns a copy whose parameters come from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name, as a PyTorch `state_dict()` names them.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: `NeuralCoreError` with code `missingValue` for a missing parameter, or
  ///   `shapeMismatch` for a parameter of the wrong shape.
  func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Self
}

/// A layer that describes itself as graph nodes; every layer of this package is one.
package protocol GraphLayer: Layer {
  /// Appends the nodes that apply the layer to a value, with its parameters as constants.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: The name of the value the layer reads; image layers read
  ///     `[batch, channels, height, width]`.
  /// - Returns: The name of the value the layer makes.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a constant's name is
  ///   already used in the graph.
  func appendNodes(to builder: inout Graph.Builder, input: String) throws(NeuralCoreError)
    -> String
}

extension Layer {
  /// Appends the layer's nodes, for any layer of this package.
  ///
  /// - Throws: `NeuralCoreError` with code `unsupported` for a layer that is not a
  ///   ``GraphLayer``, or what its `appendNodes(to:input:)` throws.
  package func appendLayerNodes(to builder: inout Graph.Builder, input: String)
    throws(NeuralCoreError) -> String
  {
    guard let layer = self as? any GraphLayer else {
      throw NeuralCoreError(.unsupported, "\(Self.self) is not a layer of NeuralCore")
    }
    return try layer.appendNodes(to: &builder, input: input)
  }

  /// The layer as a graph with one input and one output.
  ///
  /// - Parameter input: The graph's input; its shape may leave dimensions open.
  /// - Returns: A graph whose only output is the layer's output.
  /// - Throws: `NeuralCoreError` as `appendNodes(to:input:)` does.
  package func graph(input: TensorDescription) throws(NeuralCoreError) -> Graph {
    var builder = Graph.Builder()
    let value = try appendLayerNodes(to: &builder, input: input.name)
    // A layer that passes its input through still needs a node for the output to come from.
    let output = builder.appendNode("Identity", inputs: [value])
    return builder.graph(inputs: [input], outputs: [TensorDescription(name: output, shape: nil)])
  }

  /// Applies the layer by running its graph with an `InferenceSession`.
  ///
  /// The session is planned once per graph, input shape and thread count, and kept among the
  /// few most recently used; to hold a network's session yourself, make one with
  /// `InferenceSession/init(network:input:options:)`.
  ///
  /// - Parameters:
  ///   - input: The input tensor; image layers take `[batch, channels, height, width]`.
  ///   - threadCount: The number of threads the session may use.
  /// - Returns: The output tensor.
  /// - Throws: `NeuralCoreError` with code `shapeMismatch` when the input does not fit.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    let graph = try graph(input: TensorDescription(name: "input", shape: input.shape))
    let session = try LayerSessionCache.shared.session(for: graph, threadCount: threadCount)
    let outputs = try session.run(["input": input])
    guard let name = graph.outputs.first?.name, let output = outputs[name] else {
      throw NeuralCoreError(.missingValue, "the layer's graph made no output")
    }
    return output
  }

  /// Applies the layer on one thread.
  ///
  /// - Parameter input: The input tensor.
  /// - Returns: The output tensor.
  /// - Throws: `NeuralCoreError` with code `shapeMismatch` when the input does not fit.
  public func callAsFunction(_ input: Tensor) throws(NeuralCoreError) -> Tensor {
    try forward(input, threadCount: 1)
  }
}

extension Graph.Builder {
  /// Appends a layer's weight (zeros when it is not loaded) and bias as constants named after
  /// the parameters, and returns their names.
  mutating func appendParameters(
    _ parameters: (weight: Tensor, bias: Tensor?)?, of path: String, weightShape: [Int]
  ) throws(NeuralCoreError) -> [String] {
    let weight: Tensor
    if let loaded = parameters?.weight {
      weight = loaded
    } else {
      weight = try Tensor(repeating: 0, shape: weightShape)
    }
    var names = [try appendConstant(weight, named: ParameterLookup.name(path, "weight"))]
    if let bias = parameters?.bias {
      names.append(try appendConstant(bias, named: ParameterLookup.name(path, "bias")))
    }
    return names
  }
}

/// Reading named parameters out of a state dictionary.
enum ParameterLookup {
  /// The parameter `name`, checked against the expected shape (or element count when the
  /// checkpoint stores it flat).
  static func parameter(
    _ name: String, shape: [Int], in dictionary: [String: Tensor]
  ) throws(NeuralCoreError) -> Tensor {
    guard let tensor = dictionary[name] else {
      throw NeuralCoreError(.missingValue, "parameter '\(name)' is not in the state dictionary")
    }
    guard
      tensor.shape == shape || (tensor.count == Tensor.elementCount(of: shape) && tensor.rank <= 1)
    else {
      throw NeuralCoreError(
        .shapeMismatch, "parameter '\(name)' has shape \(tensor.shape), expected \(shape)")
    }
    return tensor
  }

  /// The `weight` and, when `biasShape` is given, `bias` parameters of the module at `path`,
  /// reshaped to the expected shapes.
  static func weightAndBias(
    of path: String, weightShape: [Int], biasShape: [Int]?, in dictionary: [String: Tensor]
  ) throws(NeuralCoreError) -> (weight: Tensor, bias: Tensor?) {
    let weight = try parameter(name(path, "weight"), shape: weightShape, in: dictionary)
    guard let biasShape else {
      return (try Tensor(shape: weightShape, scalars: weight.scalars), nil)
    }
    let bias = try parameter(name(path, "bias"), shape: biasShape, in: dictionary)
    return (
      try Tensor(shape: weightShape, scalars: weight.scalars),
      try Tensor(shape: biasShape, scalars: bias.scalars)
    )
  }

  /// The full name of a parameter of the module at `path`.
  static func name(_ path: String, _ parameter: String) -> String {
    path.isEmpty ? parameter : "\(path).\(parameter)"
  }
}

/// Checks of the arguments public layer initializers take, so a bad argument is a typed error
/// rather than a trap later in a kernel.
enum LayerArguments {
  /// The largest kernel size, stride, dilation or padding accepted: small enough that the window
  /// arithmetic (`(kernel - 1) * dilation + 1`, `input + padding`) cannot overflow.
  static let maximumExtent = Int(Int32.max)

  /// Throws unless every value is positive (and, for window arguments, at most
  /// ``maximumExtent``).
  ///
  /// - Parameters:
  ///   - values: Argument names and values, in declaration order.
  ///   - layer: The layer named in the message, such as `Conv2D '_conv_stem'`.
  ///   - bounded: Whether the values are window extents limited to ``maximumExtent``.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` naming the first bad argument.
  static func requirePositive(
    _ values: KeyValuePairs<String, Int>, layer: String, bounded: Bool = false
  ) throws(NeuralCoreError) {
    for (name, value) in values {
      guard value > 0 else {
        throw NeuralCoreError(.invalidArgument, "\(layer): \(name) must be positive, got \(value)")
      }
      guard !bounded || value <= maximumExtent else {
        throw NeuralCoreError(
          .invalidArgument, "\(layer): \(name) must be at most \(maximumExtent), got \(value)")
      }
    }
  }

  /// Throws unless explicit padding amounts are between 0 and ``maximumExtent``.
  ///
  /// - Parameters:
  ///   - padding: The padding argument.
  ///   - layer: The layer named in the message.
  /// - Throws: `NeuralCoreError` with code `invalidArgument`.
  static func requireValid(_ padding: Padding, layer: String) throws(NeuralCoreError) {
    guard case .explicit(let top, let left, let bottom, let right) = padding else { return }
    for amount in [top, left, bottom, right] where !(0...maximumExtent).contains(amount) {
      throw NeuralCoreError(
        .invalidArgument,
        "\(layer): padding amounts must be between 0 and \(maximumExtent), got \(padding)")
    }
  }

  /// Throws unless a parameter of `shape` has a representable element count.
  ///
  /// - Parameters:
  ///   - shape: The parameter's shape.
  ///   - layer: The layer named in the message.
  /// - Throws: `NeuralCoreError` with code `invalidArgument`.
  static func requireElementCount(_ shape: [Int], layer: String) throws(NeuralCoreError) {
    guard Tensor.elementCount(of: shape) != nil else {
      throw NeuralCoreError(
        .invalidArgument, "\(layer): a weight of shape \(shape) has too many elements")
    }
  }
}
