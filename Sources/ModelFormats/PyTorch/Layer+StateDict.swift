public import NeuralCore
public import NeuralLayers

extension Layer {
  /// Returns a copy whose parameters come from a PyTorch checkpoint.
  ///
  /// - Parameter checkpoint: A state dict read from a `.pth` file.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: `NeuralCoreError` with code `missingValue` for a missing parameter, or
  ///   `shapeMismatch` for a parameter of the wrong shape.
  public func loading(_ checkpoint: StateDict) throws(NeuralCoreError) -> Self {
    var parameters: [String: Tensor] = [:]
    for entry in checkpoint.entries { parameters[entry.name] = entry.tensor }
    return try loading(parameters)
  }
}
