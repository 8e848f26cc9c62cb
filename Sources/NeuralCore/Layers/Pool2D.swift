/// 2-D max or average pooling over `[batch, channels, height, width]` tensors.
public struct Pool2D: Layer {
  /// The reduction applied to each window.
  public enum Reduction: Sendable, Hashable {
    /// The largest element.
    case maximum
    /// The mean; `countsPadding` divides by the padded window size (`count_include_pad`).
    case average(countsPadding: Bool)
  }

  /// The reduction applied to each window.
  public let reduction: Reduction
  /// Window size, both axes.
  public let kernelSize: Int
  /// Step between windows, both axes.
  public let stride: Int
  /// How the input is padded.
  public let padding: Padding
  /// Whether a partial window at the end produces an output (`ceil_mode`).
  public let ceilMode: Bool

  /// Creates a pooling layer.
  ///
  /// - Parameters:
  ///   - reduction: Maximum or average.
  ///   - kernelSize: Window size, both axes.
  ///   - stride: Step between windows; defaults to the kernel size.
  ///   - padding: How the input is padded.
  ///   - ceilMode: Whether a partial window at the end produces an output.
  /// - Throws: ``NeuralCoreError`` with code `invalidArgument` when the kernel size or stride is
  ///   not positive or a padding amount is negative.
  public init(
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

  /// Pools each channel plane.
  ///
  /// - Parameters:
  ///   - input: `[batch, channels, height, width]`.
  ///   - threadCount: The number of threads to use.
  /// - Returns: `[batch, channels, outputHeight, outputWidth]`.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` for a non-image input or a window
  ///   larger than the padded input.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    guard input.rank == 4 else {
      throw NeuralCoreError(.shapeMismatch, "Pool2D expects a 4-D input, got \(input.shape)")
    }
    let (height, width) = (input.shape[2], input.shape[3])
    let window = padding.window(
      kernel: (kernelSize, kernelSize), stride: (stride, stride), dilation: (1, 1),
      height: height, width: width)
    let kind: Pooling.Kind
    switch reduction {
    case .maximum: kind = .max
    case .average(let countsPadding): kind = .average(countsPadding: countsPadding)
    }
    let pooling = Pooling(kind: kind, window: window, ceilMode: ceilMode)
    guard let size = pooling.outputSize(height: height, width: width) else {
      throw NeuralCoreError(.shapeMismatch, "Pool2D window larger than the input \(input.shape)")
    }
    let planes = input.shape[0] * input.shape[1]
    return try LayerSupport.map(
      input, to: [input.shape[0], input.shape[1], size.height, size.width]
    ) { source, target in
      pooling.run(
        input: source, planes: planes, height: height, width: width, output: target,
        threads: threadCount)
    }
  }
}

/// Averages each channel plane to one value: `[batch, channels, h, w]` to `[batch, channels, 1, 1]`.
public struct GlobalAveragePool: Layer {
  /// Creates the layer.
  public init() {}

  /// Returns the layer unchanged: it has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> GlobalAveragePool { self }

  /// Averages each plane.
  ///
  /// - Parameters:
  ///   - input: `[batch, channels, height, width]`.
  ///   - threadCount: The number of threads to use.
  /// - Returns: `[batch, channels, 1, 1]`.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` for a non-image input.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    guard input.rank == 4 else {
      throw NeuralCoreError(
        .shapeMismatch, "GlobalAveragePool expects a 4-D input, got \(input.shape)")
    }
    let planes = input.shape[0] * input.shape[1]
    let count = input.shape[2] * input.shape[3]
    return try LayerSupport.map(input, to: [input.shape[0], input.shape[1], 1, 1]) {
      source, target in
      Pooling.globalAverage(
        input: source, planes: planes, count: count, output: target, threads: threadCount)
    }
  }
}
