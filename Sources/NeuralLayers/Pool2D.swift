public import NeuralCore

/// 2-D max or average pooling over `[batch, channels, height, width]` tensors, over windows or
/// (``globalAverage()``) over each whole channel plane.
public struct Pool2D: Layer, GraphLayer {
  /// The reduction applied to each window.
  package enum Reduction: Sendable, Hashable {
    /// The largest element.
    case maximum
    /// The mean; `countsPadding` divides by the padded window size (`count_include_pad`).
    case average(countsPadding: Bool)
    /// The mean of each whole channel plane, whatever its size (`GlobalAveragePool`).
    case globalAverage
  }

  /// The reduction applied to each window.
  package let reduction: Reduction
  /// Window size, both axes; 0 for ``globalAverage()``, whose window is the whole plane.
  public let kernelSize: Int
  /// Step between windows, both axes; 1 for ``globalAverage()``.
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

  /// Creates a layer that averages each channel plane to one value (PyTorch's
  /// `AdaptiveAvgPool2d(1)`, ONNX's `GlobalAveragePool`).
  ///
  /// - Returns: The layer: `[batch, channels, height, width]` to `[batch, channels, 1, 1]`.
  public static func globalAverage() -> Pool2D {
    Pool2D(reduction: .globalAverage, kernelSize: 0, stride: 1, padding: .valid, ceilMode: false)
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
    self.init(
      reduction: reduction, kernelSize: kernelSize, stride: stride ?? kernelSize, padding: padding,
      ceilMode: ceilMode)
  }

  private init(
    reduction: Reduction, kernelSize: Int, stride: Int, padding: Padding, ceilMode: Bool
  ) {
    self.reduction = reduction
    self.kernelSize = kernelSize
    self.stride = stride
    self.padding = padding
    self.ceilMode = ceilMode
  }

  /// Returns the layer unchanged: pooling has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> Pool2D { self }

  /// Appends a `MaxPool`, `AveragePool` or `GlobalAveragePool` node.
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, channels, height, width]`.
  /// - Returns: `[batch, channels, outputHeight, outputWidth]`.
  package func appendNodes(to builder: inout Graph.Builder, input: String) -> String {
    switch reduction {
    case .maximum:
      return builder.appendNode("MaxPool", inputs: [input], attributes: windowAttributes)
    case .average(let countsPadding):
      return builder.appendNode(
        "AveragePool", inputs: [input],
        attributes: windowAttributes + [
          Graph.Attribute(name: "count_include_pad", value: .int(countsPadding ? 1 : 0))
        ])
    case .globalAverage:
      return builder.appendNode("GlobalAveragePool", inputs: [input])
    }
  }

  /// The window's `kernel_shape`, `strides`, padding and `ceil_mode` attributes.
  private var windowAttributes: [Graph.Attribute] {
    [
      Graph.Attribute(name: "kernel_shape", value: .ints([Int64(kernelSize), Int64(kernelSize)])),
      Graph.Attribute(name: "strides", value: .ints([Int64(stride), Int64(stride)])),
    ] + padding.attributes + [Graph.Attribute(name: "ceil_mode", value: .int(ceilMode ? 1 : 0))]
  }
}
