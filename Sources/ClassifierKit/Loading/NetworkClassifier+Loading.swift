public import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore

extension NetworkClassifier {
  /// Loads a classifier from any model file, its format found from the content, not the name:
  /// an ONNX model with its JSON sidecar (a trained model's included), a Core ML `.mlmodel`
  /// or `.mlpackage` folder, or an EfficientNet-Lite0 PyTorch checkpoint.
  ///
  /// - Parameters:
  ///   - url: The model file or `.mlpackage` folder.
  ///   - sidecar: An ONNX model's sidecar; `nil` uses the model's path with the extension
  ///     `.json`. Other formats describe themselves.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` as ``onnx(contentsOf:sidecar:threadCount:)``,
  ///   ``coreML(contentsOf:threadCount:)`` and ``efficientNetLite0(checkpoint:threadCount:)``
  ///   do, and `modelUnavailable` for a missing file or one in none of these formats.
  public static func load(contentsOf url: URL, sidecar: URL? = nil, threadCount: Int? = nil)
    throws(ClassificationError) -> NetworkClassifier
  {
    switch try ModelFiles.format(of: url) {
    case .onnx: try onnx(contentsOf: url, sidecar: sidecar, threadCount: threadCount)
    case .coreML: try coreML(contentsOf: url, threadCount: threadCount)
    case .pyTorchCheckpoint: try efficientNetLite0(checkpoint: url, threadCount: threadCount)
    }
  }

  /// Loads the default model, EfficientNet-Lite0 on ImageNet-1k, built from NeuralCore layers and
  /// run as a planned graph.
  ///
  /// - Parameters:
  ///   - checkpoint: The `efficientnet-lite0-57934424.pth` file; `nil` searches
  ///     `<cache>/models/` in `$VISION_CATALOG_CACHE`, then `$XDG_CACHE_HOME/vision-catalog` (or
  ///     `~/.cache/vision-catalog`), then `.cache` in the package checkout.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable`: when no checkpoint is found
  ///   (the message says which command downloads it), or when the file is not a valid
  ///   EfficientNet-Lite0 checkpoint (the `ModelFormatsError` as
  ///   ``ClassificationError/underlying``), or when `VISION_CATALOG_KERNELS` names a kernel set
  ///   this CPU lacks.
  public static func efficientNetLite0(checkpoint: URL? = nil, threadCount: Int? = nil)
    throws(ClassificationError) -> NetworkClassifier
  {
    try requireKernelSet()
    let session = try DefaultModel.withLite0Checkpoint(checkpoint) { _, tensors in
      try InferenceSession(
        model: EfficientNetLite.lite0().graph(loading: tensors),
        options: SessionOptions(threadCount: threadCount))
    }
    return try NetworkClassifier(session: session, description: .efficientNetLite0())
  }

  /// Loads an ONNX classifier described by a JSON sidecar.
  ///
  /// - Parameters:
  ///   - url: The `.onnx` file.
  ///   - sidecar: The sidecar (format in ``ModelDescription/init(sidecarAt:)``); `nil` uses the
  ///     model's path with the extension `.json`.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError``: `modelUnavailable` when the model or sidecar cannot be
  ///   read or the model is damaged or unsupported (the `ModelFormatsError` as
  ///   ``ClassificationError/underlying``) or `VISION_CATALOG_KERNELS` names a kernel set this CPU
  ///   lacks; `invalidModelDescription` naming a wrong sidecar field.
  public static func onnx(contentsOf url: URL, sidecar: URL? = nil, threadCount: Int? = nil)
    throws(ClassificationError) -> NetworkClassifier
  {
    let description = try ModelFiles.description(ofModel: url, sidecar: sidecar)
    try requireKernelSet()
    let session: InferenceSession
    do {
      session = try InferenceSession(
        contentsOf: url, options: SessionOptions(threadCount: threadCount))
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot load the ONNX model \(url.path)", underlying: error)
    }
    return try NetworkClassifier(session: session, description: description)
  }

  /// Loads a Core ML classifier, a neural network (`.mlmodel`) or an ML Program
  /// (`.mlpackage` folder): the input size, colour order, Core ML's scale and biases and the
  /// labels all come from the file, so no sidecar is needed.
  ///
  /// Photos are prepared with Vision's default crop, `CropAndScale.centerCrop`. Confidences
  /// are softmax probabilities as for every model; a network that already ends in a softmax
  /// keeps its own.
  ///
  /// - Parameters:
  ///   - url: The model file.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the file cannot be
  ///   read or run (the `ModelFormatsError`, which says why, as ``ClassificationError/underlying``).
  public static func coreML(contentsOf url: URL, threadCount: Int? = nil)
    throws(ClassificationError) -> NetworkClassifier
  {
    try requireKernelSet()
    let model: CoreMLModel
    let session: InferenceSession
    do {
      model = try CoreMLModel(contentsOf: url)
      session = try InferenceSession(
        coreMLModel: model, options: SessionOptions(threadCount: threadCount))
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot run the Core ML model \(url.path): \(error.message)",
        underlying: error)
    }
    let order: ChannelOrder
    switch model.imageInput.colorLayout {
    case .rgb: order = .rgb
    case .bgr: order = .bgr
    case .grayscale:
      throw ClassificationError(
        .modelUnavailable,
        "cannot run the Core ML model \(url.path): grayscale image inputs are not run yet")
    }
    let input = ModelInputSpec(
      width: model.imageInput.width, height: model.imageInput.height, cropAndScale: .centerCrop,
      normalization: .identity, channelOrder: order)
    let labels = model.classLabels ?? []
    let description = ModelDescription(
      name: url.deletingPathExtension().lastPathComponent, input: input, labels: labels,
      inputName: model.inputName, outputName: model.scoresOutput,
      scoresAreProbabilities: model.scoresAreProbabilities)
    return try NetworkClassifier(session: session, description: description)
  }

  /// Fails when `VISION_CATALOG_KERNELS` names a kernel set this CPU lacks, with NeuralCore's
  /// message (it names the sets this CPU runs) rather than as a damaged model.
  private static func requireKernelSet() throws(ClassificationError) {
    do {
      _ = try InferenceSession.selectedKernelSet()
    } catch {
      throw ClassificationError(.modelUnavailable, error.message, underlying: error)
    }
  }
}
