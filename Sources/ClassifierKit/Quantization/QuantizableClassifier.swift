public import Foundation
public import ModelFormats
import NeuralCore

/// A float32 classifier ready to quantize: its ONNX model and the description (input
/// preparation, labels, tensor names) that classifying with it uses.
///
/// Make one from the default model (``efficientNetLite0(checkpoint:)``), from an ONNX file with
/// its sidecar (``onnx(contentsOf:sidecar:)``), or from a trained classifier
/// (``TrainedClassifier/quantizable``); ``ClassifierQuantizer`` prepares the calibration photos
/// exactly as `NetworkClassifier` prepares photos for this model.
public struct QuantizableClassifier: Sendable {
  /// The float32 network.
  public var model: ONNXModel
  /// The input preparation, labels and tensor names.
  public var description: ModelDescription

  /// Creates a classifier to quantize.
  ///
  /// - Parameters:
  ///   - model: The float32 network.
  ///   - description: Its input preparation, labels and tensor names.
  public init(model: ONNXModel, description: ModelDescription) {
    self.model = model
    self.description = description
  }

  /// Loads a float32 classifier to quantize from a model file, its format found from the
  /// content: an ONNX model with its JSON sidecar, or an EfficientNet-Lite0 PyTorch checkpoint.
  ///
  /// - Parameters:
  ///   - url: The model file.
  ///   - sidecar: An ONNX model's sidecar; `nil` uses the model's path with the extension
  ///     `.json`.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` as ``onnx(contentsOf:sidecar:)`` and
  ///   ``efficientNetLite0(checkpoint:)`` do, and `modelUnavailable` for a missing file, a Core
  ///   ML model (quantize its ONNX form) or a file in no model format.
  public static func load(contentsOf url: URL, sidecar: URL? = nil)
    throws(ClassificationError) -> QuantizableClassifier
  {
    switch try ModelFiles.format(of: url) {
    case .onnx: return try onnx(contentsOf: url, sidecar: sidecar)
    case .pyTorchCheckpoint: return try efficientNetLite0(checkpoint: url)
    case .coreML:
      throw ClassificationError(
        .modelUnavailable,
        "\(url.path) is a Core ML model; quantize takes an ONNX model with its sidecar or a "
          + "PyTorch checkpoint")
    }
  }

  /// The default model, EfficientNet-Lite0 on ImageNet-1k, as the ONNX graph `classify` runs
  /// (batch normalizations folded), with the description of ``ModelDescription/efficientNetLite0()``.
  ///
  /// - Parameter checkpoint: The `efficientnet-lite0-57934424.pth` file; `nil` searches the
  ///   model caches as ``NetworkClassifier/efficientNetLite0(checkpoint:threadCount:)`` does.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when no checkpoint is found
  ///   (the message names the command that downloads it) or the file is not an
  ///   EfficientNet-Lite0 checkpoint.
  public static func efficientNetLite0(checkpoint: URL? = nil) throws(ClassificationError)
    -> QuantizableClassifier
  {
    try DefaultModel.withLite0Checkpoint(checkpoint) { _, tensors in
      QuantizableClassifier(
        model: try EfficientNetLite.lite0().graph(loading: tensors),
        description: .efficientNetLite0())
    }
  }

  /// An ONNX classifier described by a JSON sidecar, the files
  /// ``NetworkClassifier/onnx(contentsOf:sidecar:threadCount:)`` loads.
  ///
  /// - Parameters:
  ///   - url: The `.onnx` file.
  ///   - sidecar: The sidecar; `nil` uses the model's path with the extension `.json`.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError``: `modelUnavailable` when the model or sidecar cannot be
  ///   read or the model is damaged; `invalidModelDescription` naming a wrong sidecar field.
  public static func onnx(contentsOf url: URL, sidecar: URL? = nil)
    throws(ClassificationError) -> QuantizableClassifier
  {
    let description = try ModelFiles.description(ofModel: url, sidecar: sidecar)
    do {
      return QuantizableClassifier(model: try ONNXModel(contentsOf: url), description: description)
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot load the ONNX model \(url.path)", underlying: error)
    }
  }
}

extension TrainedClassifier {
  /// The trained network and its description, to quantize (``ClassifierQuantizer``).
  public var quantizable: QuantizableClassifier {
    QuantizableClassifier(model: graph, description: description)
  }
}
