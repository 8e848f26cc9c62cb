public import Foundation
public import NeuralCore
public import NeuralLayers

extension Layer {
  /// Returns a copy whose parameters come from a PyTorch checkpoint.
  ///
  /// - Parameter checkpoint: A state dict read from a `.pth` file.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: ``ModelFormatsError`` with code `missingValue` for a missing parameter, or
  ///   `malformedFile` for a parameter of the wrong shape; the engine's error is its
  ///   ``ModelFormatsError/underlying`` error.
  package func loading(_ checkpoint: StateDict) throws(ModelFormatsError) -> Self {
    try ModelFormatsError.converting(as: .malformedFile, try loading(checkpoint.tensors))
  }

  /// Returns a copy whose parameters come from the PyTorch checkpoint at `url`, the file
  /// `torch.save(model.state_dict(), path)` writes.
  ///
  /// - Parameters:
  ///   - url: The `.pth` file.
  ///   - limits: The bounds on the file's size and tensors.
  /// - Returns: The layer with its parameters replaced.
  /// - Throws: ``ModelFormatsError`` as `Dictionary.init(pyTorchCheckpointAt:limits:)` does,
  ///   `missingValue` for a missing parameter, or `malformedFile` for a parameter of the wrong
  ///   shape.
  public func loading(checkpointAt url: URL, limits: ImportLimits = .default)
    throws(ModelFormatsError) -> Self
  {
    try loading(StateDict(contentsOf: url, limits: limits))
  }
}

extension Dictionary where Key == String, Value == Tensor {
  /// Reads the tensors of a PyTorch checkpoint by name, every one as float32.
  ///
  /// Both layouts `torch.save(model.state_dict(), path)` writes are read: the zip layout and
  /// the legacy one. Only the pickle opcodes and globals a state dict uses are understood;
  /// anything else is refused before it is touched.
  ///
  /// - Parameters:
  ///   - url: The `.pth` file.
  ///   - limits: The bounds on the file's size and tensors.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for a
  ///   damaged file, `unsupported` for a full training checkpoint or an unknown global,
  ///   `limitExceeded` past `limits`.
  public init(pyTorchCheckpointAt url: URL, limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    self = try StateDict(contentsOf: url, limits: limits).tensors
  }
}
