public import Foundation
public import NeuralCore

extension InferenceSession {
  /// Loads a parsed ONNX model.
  ///
  /// - Parameters:
  ///   - model: The parsed model.
  ///   - options: Thread count and other settings.
  /// - Throws: `NeuralCoreError` with code `unsupported` naming the node and operator for an
  ///   operator or attribute NeuralCore does not run, or when `VISION_CATALOG_KERNELS` asks for
  ///   a kernel set this CPU lacks; `malformedFile` for an inconsistent graph.
  public convenience init(model: ONNXModel, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    try self.init(graph: Graph(model), options: options)
  }

  /// Loads the network of a Core ML model.
  ///
  /// Its one input is ``CoreMLModel/inputName`` (the image's raw 0-255 samples,
  /// `[1, channels, height, width]` in the model's colour order) and its output
  /// ``CoreMLModel/scoresOutput``.
  ///
  /// - Parameters:
  ///   - coreMLModel: The parsed model.
  ///   - options: Thread count and other settings.
  /// - Throws: `NeuralCoreError` as `init(model:options:)` does.
  public convenience init(coreMLModel: CoreMLModel, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    try self.init(model: coreMLModel.graph, options: options)
  }

  /// Loads an ONNX model file.
  ///
  /// - Parameters:
  ///   - url: The `.onnx` file.
  ///   - options: Thread count and other settings.
  /// - Throws: `NeuralCoreError`: `io` when the file cannot be read, `malformedFile` for a
  ///   damaged file, `unsupported` naming the node and operator NeuralCore does not run.
  public convenience init(contentsOf url: URL, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    try self.init(model: ONNXModel(contentsOf: url), options: options)
  }
}
