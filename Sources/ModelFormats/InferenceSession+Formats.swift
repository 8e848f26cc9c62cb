public import Foundation
public import NeuralCore

extension InferenceSession {
  /// Loads a parsed ONNX model.
  ///
  /// - Parameters:
  ///   - model: The parsed model.
  ///   - options: Thread count and other settings.
  /// - Throws: ``ModelFormatsError`` with code `unsupported` naming the node and operator for an
  ///   operator or attribute NeuralCore does not run, or when `VISION_CATALOG_KERNELS` asks for
  ///   a kernel set this CPU lacks; `malformedFile` for an inconsistent graph (a cycle, an
  ///   attribute of the wrong type); `invalidGraph` for a graph the engine cannot plan, such as
  ///   a node whose input shapes do not fit. The engine's error is the
  ///   ``ModelFormatsError/underlying`` error.
  public convenience init(model: ONNXModel, options: SessionOptions = SessionOptions())
    throws(ModelFormatsError)
  {
    let graph = try Graph(model)
    do {
      try self.init(graph: graph, options: options)
    } catch {
      throw ModelFormatsError(wrapping: error)
    }
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
  /// - Throws: ``ModelFormatsError`` as `init(model:options:)` does.
  public convenience init(coreMLModel: CoreMLModel, options: SessionOptions = SessionOptions())
    throws(ModelFormatsError)
  {
    try self.init(model: coreMLModel.graph, options: options)
  }

  /// Loads an ONNX model file.
  ///
  /// - Parameters:
  ///   - url: The `.onnx` file.
  ///   - options: Thread count and other settings.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for a
  ///   damaged file, `unsupported` naming the node and operator NeuralCore does not run.
  public convenience init(contentsOf url: URL, options: SessionOptions = SessionOptions())
    throws(ModelFormatsError)
  {
    try self.init(model: ONNXModel(contentsOf: url), options: options)
  }
}
