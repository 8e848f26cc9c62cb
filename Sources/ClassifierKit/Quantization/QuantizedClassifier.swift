public import Foundation
public import ModelFormats
import NeuralCore

/// A classifier quantized to int8 by ``ClassifierQuantizer``: the QDQ model, the float32
/// model's description, and the report.
///
/// ``write(to:)`` saves it as an ONNX file that ONNX Runtime and `vision-catalog --model` load
/// and a JSON sidecar with the same preparation and labels as the float32 model.
public struct QuantizedClassifier: Sendable {
  /// The quantized network in ONNX's QDQ form.
  public var model: ONNXModel
  /// The input preparation, labels and tensor names, as for the float32 model.
  public var description: ModelDescription
  /// How it was quantized and how often it agrees with the float32 model.
  public var report: QuantizationReport

  /// Creates a quantized classifier.
  ///
  /// - Parameters:
  ///   - model: The quantized network.
  ///   - description: Its input preparation, labels and tensor names.
  ///   - report: How it was quantized.
  public init(model: ONNXModel, description: ModelDescription, report: QuantizationReport) {
    self.model = model
    self.description = description
    self.report = report
  }

  /// The sidecar's URL for a model file: the same path with the extension `.json`.
  ///
  /// - Parameter url: The `.onnx` file.
  /// - Returns: The sidecar's URL.
  public static func sidecarURL(for url: URL) -> URL {
    ModelFiles.sidecarURL(for: url)
  }

  /// Saves the model at `url` and its sidecar at ``sidecarURL(for:)``.
  ///
  /// Each file is written to a temporary name and renamed, so a failure leaves any earlier file
  /// whole.
  ///
  /// - Parameter url: The `.onnx` file to write.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `url` does not end in
  ///   `.onnx` or a file cannot be written; `invalidModelDescription` when the description
  ///   cannot be a sidecar.
  public func write(to url: URL) throws(ClassificationError) {
    try ModelFiles.write(model, description: description, to: url)
  }

  /// The quantized classifier, ready to classify photos.
  ///
  /// - Parameter threadCount: The threads one network call may use; `nil` means every active
  ///   processor.
  /// - Returns: The classifier.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when NeuralCore cannot run
  ///   the quantized graph.
  public func classifier(threadCount: Int? = nil) throws(ClassificationError) -> NetworkClassifier {
    let session: InferenceSession
    do {
      session = try InferenceSession(
        model: model, options: SessionOptions(threadCount: threadCount))
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot run the quantized model: \(error.message)", underlying: error)
    }
    return try NetworkClassifier(session: session, description: description)
  }

}
