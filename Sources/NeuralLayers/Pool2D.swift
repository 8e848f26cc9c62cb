public import NeuralCore

/// 2-D max or average pooling over `[batch, channels, height, width]` tensors.
public struct Pool2D: Layer, GraphLayer {
  /// The reduction applied to each window.
  package enum Reduction: Sendable, Hashable {
    /// The largest element.
    case maximum
    /// The mean; `countsPadding` divides by the padded window size (`count_include_pad`).
    case average(countsPadding: Bool)
  }

  /// The reduction applied to each window.
  package let reduction: Reduction
  /// Window size, both axes.
  public let kernelSize: Int
  /// Step between windows, both axes.
  public let stride: Int
  /// How the input is padded.
  public let padding: Padding
  /// Whether a partial window at the end produces an output (`ceil_mode`).
  public let ceilMode: Bool

  /// Creates a max-pooling layer (PyTorch's `MaxPool2d`).
  ///
  /// - Parameters:
  ///   - kernelSize: Window size, both axes.
  ///   - stride: Step between windows; defaults to the kernel size.
  ///   - padding: How the input is padded.
  ///   - ceilMode: Whether a partial window at the end produces an output.
  /// - Returns: The layer.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when the kernel size or stride is
  ///   not positive or a padding amount is negative.
  public static func maximum(
    kernelSize: Int, stride: Int? = nil, padding: Padding = .valid, ceilMode: Bool = false
  ) throws(NeuralCoreError) -> Pool2D {
    try Pool2D(
      .maximum, kernelSize: kernelSize, stride: stride, padding: padding, ceilMode: ceilMode)
  }

  /// Creates an average-pooling layer (PyTorch's `AvgPool2d`).
  ///
  /// - Parameters:
  ///   - kernelSize: Window size, both axes.
  ///   - stride: Step between windows; defaults to the kernel size.
  ///   - padding: How the input is padded.
  ///   - ceilMode: Whether a partial window at the end produces an output.
  ///   - countsPadding: Whether the mean divides by the padded window size
  ///     (`count_include_pad`).
  /// - Returns: The layer.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when the kernel size or stride is
  ///   not positive or a padding amount is negative.
  public static func average(
    kernelSize: Int, stride: Int? = nil, padding: Padding = .valid, ceilMode: Bool = false,
    countsPadding: Bool
  ) throws(NeuralCoreError) -> Pool2D {
    try Pool2D(
      .average(countsPadding: countsPadding), kernelSize: kernelSize, stride: stride,
      padding: padding, ceilMode: ceilMode)
  }

  /// Creates a pooling layer.
  ///
  /// - Parameters:
  ///   - reduction: Maximum or average.
  ///   - kernelSize: Window size, both axes.
  ///   - stride: Step between windows; defaults to the kernel size.
  ///   - padding: How the input is padded.
  ///   - ceilMode: Whether a partial window at the end produces an output.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when the kernel size or stride is
  ///   not positive or a padding amount is negative.
  package init(
    _ reduction: Reduction, kernelSize: Int, stride: Int? = nil, padding: Padding = .valid,
    ceilMode: Bool = false
  ) throws(NeuralCoreError) {
    try LayerArguments.requirePositive(
      ["kernelSize": kernelSize, "stride": stride ?? kernelSize], layer: "Pool2D", bounded: true)
    try LayerArguments.requireValid(padding, layer: "Pool2D")
    self.reduction = reduction
    self.kernelSize = kernelSize
    self.stride = stride ?? kernelSize
    self.padding = padding
    self.ceilMode = ceilMode
  }

  /// Returns the layer unchanged: pooling has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> Pool2D { self }

  /// Appends a `MaxPool` or `AveragePool` node.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, channels, height, width]`.
  /// - Returns: `[batch, channels, outputHeight, outputWidth]`.
  package func appendNodes(to builder: inout Graph.Builder, input: String) -> String {
    var attributes =
      [
        Graph.Attribute(
          name: "kernel_shape", value: .ints([Int64(kernelSize), Int64(kernelSize)])),
        Graph.Attribute(name: "strides", value: .ints([Int64(stride), Int64(stride)])),
      ] + padding.attributes
    attributes.append(Graph.Attribute(name: "ceil_mode", value: .int(ceilMode ? 1 : 0)))
    switch reduction {
    case .maximum:
      return builder.appendNode("MaxPool", inputs: [input], attributes: attributes)
    case .average(let countsPadding):
      attributes.append(
        Graph.Attribute(name: "count_include_pad", value: .int(countsPadding ? 1 : 0)))
      return builder.appendNode("AveragePool", inputs: [input], attributes: attributes)
    }
  }
}

/// Averages each channel plane to one value: `[batch, channels, h, w]` to `[batch, channels, 1, 1]`.
public struct GlobalAveragePool: Layer, GraphLayer {
  /// Creates the layer.
  public init() {}

  /// Returns the layer unchanged: it has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> GlobalAveragePool { self }

  /// Appends a `GlobalAveragePool` node.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, channels, height, width]`.
  /// - Returns: `[batch, channels, 1, 1]`.
  package func appendNodes(to builder: inout Graph.Builder, input: String) -> String {
    builder.appendNode("GlobalAveragePool", inputs: [input])
  }
}
