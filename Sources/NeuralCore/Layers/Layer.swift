/// A stage of a network built in Swift: maps a tensor to a tensor, and takes its parameters by
/// name from a state dictionary.
///
/// Layers are values. Build the network's structure with parameter names matching the
/// checkpoint (PyTorch module paths such as `_blocks.3._depthwise_conv`), then call
/// ``loading(_:)`` with the state dictionary to get a copy that holds the trained parameters.
public protocol Layer: Sendable {
  /// Applies the layer.
  ///
  /// - Parameters:
  ///   - input: The input tensor; image layers take `[batch, channels, height, width]`.
  ///   - threadCount: The number of threads the layer may use.
  /// - Returns: The output tensor.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the input does not fit.
  func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor

  /// Returns a copy whose parameters come from a state dictionary.
  ///
  /// - Parameter stateDictionary: Parameters by full name, as a PyTorch `state_dict()` names them.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: ``NeuralCoreError`` with code `missingValue` for a missing parameter, or
  ///   `shapeMismatch` for a parameter of the wrong shape.
  func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> Self
}

extension Layer {
  /// Applies the layer on one thread.
  ///
  /// - Parameter input: The input tensor.
  /// - Returns: The output tensor.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the input does not fit.
  public func callAsFunction(_ input: Tensor) throws(NeuralCoreError) -> Tensor {
    try forward(input, threadCount: 1)
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

  /// The full name of a parameter of the module at `path`.
  static func name(_ path: String, _ parameter: String) -> String {
    path.isEmpty ? parameter : "\(path).\(parameter)"
  }
}

/// Tensor plumbing shared by the layers.
enum LayerSupport {
  /// Checks that an image input is `[batch, channels, height, width]` with `channels` channels.
  static func imageShape(
    _ input: Tensor, channels: Int, layer: String
  ) throws(NeuralCoreError) -> (batch: Int, height: Int, width: Int) {
    guard input.rank == 4, input.shape[1] == channels else {
      throw NeuralCoreError(
        .shapeMismatch,
        "\(layer) expects [batch, \(channels), height, width], got \(input.shape)")
    }
    return (input.shape[0], input.shape[2], input.shape[3])
  }

  /// Allocates an output of `shape` and fills it from the input's scalars with `body`.
  static func map(
    _ input: Tensor, to shape: [Int],
    _ body: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void
  ) throws(NeuralCoreError) -> Tensor {
    guard let count = Tensor.elementCount(of: shape) else {
      throw NeuralCoreError(.shapeMismatch, "invalid output shape \(shape)")
    }
    // Tensor's initializers guarantee this; the bodies index the input by its shape alone.
    precondition(Tensor.elementCount(of: input.shape) == input.count, "tensor count mismatch")
    let scalars = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
      input.scalars.withUnsafeBufferPointer { source in
        // Safety: body reads the input's elements (as many as its shape says, checked above)
        // and writes exactly `count` outputs.
        guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
        body(from, to)
      }
      initialized = count
    }
    return try Tensor(shape: shape, scalars: scalars)
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
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument` naming the first bad argument.
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
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument`.
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
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument`.
  static func requireElementCount(_ shape: [Int], layer: String) throws(NeuralCoreError) {
    guard Tensor.elementCount(of: shape) != nil else {
      throw NeuralCoreError(
        .invalidArgument, "\(layer): a weight of shape \(shape) has too many elements")
    }
  }
}
