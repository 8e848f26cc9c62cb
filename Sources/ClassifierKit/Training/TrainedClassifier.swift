public import Foundation
package import ModelFormats
import NeuralCore

/// A classifier ``ClassifierTrainer`` trained: the backbone with a new last layer, its labels
/// and preparation, and how well it did.
///
/// ``write(to:)`` saves it as one ONNX file (EfficientNet-Lite0 with the trained layer as its
/// classifier, opset 13, which ONNX Runtime and Netron open as they are) and a JSON sidecar
/// next to it (the format of ``ModelDescription/init(sidecarAt:)``, labels inline), which
/// ``NetworkClassifier/onnx(contentsOf:sidecar:threadCount:)`` and `vision-catalog --model`
/// load like any other model.
public struct TrainedClassifier: Sendable {
  /// The labels, the preparation and the tensor names; ``ModelDescription/unknownThreshold``
  /// holds the calibrated threshold, if any.
  public let description: ModelDescription
  /// The trained classifier over the backbone's features.
  package let head: SoftmaxRegression
  /// The whole network as an ONNX graph.
  package let graph: ONNXModel
  /// The metrics on the training photos (without their augmented copies).
  public let training: ClassificationMetrics
  /// The metrics on the validation photos, when there were any.
  public let validation: ClassificationMetrics?
  /// How the head's fit ended.
  package let fit: SoftmaxRegression.Report
  /// The feature vectors the head was fitted to: training photos and their augmented copies.
  public let sampleCount: Int
  /// The photos that could not be read, and why.
  public let skipped: [SkippedPhoto]

  init(
    labels: [String], head: SoftmaxRegression, extractor: FeatureExtractor,
    unknownThreshold: Float?, training: ClassificationMetrics,
    validation: ClassificationMetrics?, fit: SoftmaxRegression.Report, sampleCount: Int,
    skipped: [SkippedPhoto]
  ) throws(ClassificationError) {
    description = ModelDescription(
      name: "trained-efficientnet-lite0", input: extractor.inputSpec, labels: labels,
      inputName: EfficientNetLite.graphInput, outputName: EfficientNetLite.graphOutput,
      unknownThreshold: unknownThreshold)
    self.head = head
    graph = try extractor.classifierGraph(head: head)
    self.training = training
    self.validation = validation
    self.fit = fit
    self.sampleCount = sampleCount
    self.skipped = skipped
  }

  /// The sidecar's URL for a model file: the same path with the extension `.json`.
  ///
  /// - Parameter url: The `.onnx` file.
  /// - Returns: The sidecar's URL.
  public static func sidecarURL(for url: URL) -> URL {
    ModelFiles.sidecarURL(for: url)
  }

  /// Saves the model: the ONNX file at `url` and its sidecar at ``sidecarURL(for:)``.
  ///
  /// Each file is written to a temporary name and renamed, so a failure leaves any earlier
  /// file whole. The same classifier always gives the same bytes.
  ///
  /// - Parameter url: The `.onnx` file to write.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `url` does not end in
  ///   `.onnx` or a file cannot be written.
  public func write(to url: URL) throws(ClassificationError) {
    try ModelFiles.write(graph, description: description, to: url)
  }

  /// The trained classifier, ready to classify photos.
  ///
  /// - Parameter threadCount: The threads one network call may use; `nil` means every active
  ///   processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the graph cannot be
  ///   planned.
  public func classifier(threadCount: Int? = nil) throws(ClassificationError) -> NetworkClassifier {
    let session: InferenceSession
    do {
      session = try InferenceSession(
        model: graph, options: SessionOptions(threadCount: threadCount))
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot plan the trained model", underlying: error)
    }
    return try NetworkClassifier(session: session, description: description)
  }
}
