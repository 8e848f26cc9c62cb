/// Flattens every axis after the first: `[batch, d1, d2, ...]` to `[batch, d1 * d2 * ...]`.
public struct Flatten: Layer {
  /// Creates the layer.
  public init() {}

  /// Returns the layer unchanged: it has no parameters.
  ///
  /// - Parameter stateDictionary: Ignored.
  /// - Returns: `self`.
  public func loading(_ stateDictionary: [String: Tensor]) -> Flatten { self }

  /// Reshapes the input.
  ///
  /// - Parameters:
  ///   - input: A tensor of rank 1 or more.
  ///   - threadCount: Unused.
  /// - Returns: `[batch, features]`, sharing the input's storage.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` for a scalar input.
  public func forward(_ input: Tensor, threadCount: Int) throws(NeuralCoreError) -> Tensor {
    guard let batch = input.shape.first else {
      throw NeuralCoreError(.shapeMismatch, "Flatten needs a batch axis, got a scalar")
    }
    return try Tensor(shape: [batch, input.shape.dropFirst().reduce(1, *)], scalars: input.scalars)
  }
}
