import NeuralCore
public import NeuralLayers

extension Layer {
  /// Returns a copy whose parameters come from a PyTorch checkpoint.
  ///
  /// - Parameter checkpoint: A state dict read from a `.pth` file.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: ``ModelFormatsError`` with code `missingValue` for a missing parameter, or
  ///   `malformedFile` for a parameter of the wrong shape; the engine's error is its
  ///   ``ModelFormatsError/underlying`` error.
  public func loading(_ checkpoint: StateDict) throws(ModelFormatsError) -> Self {
    var parameters: [String: Tensor] = [:]
    for entry in checkpoint.entries { parameters[entry.name] = entry.tensor }
    return try ModelFormatsError.converting(as: .malformedFile, try loading(parameters))
  }
}
