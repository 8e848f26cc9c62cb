package import Foundation
import ModelFormats
import NeuralCore

/// A classifier's two files: its ONNX model and, beside it, its JSON sidecar.
package enum ModelFiles {
  /// The format of the model file or folder at `url`, found from its content.
  ///
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when it is missing,
  ///   unreadable or in no model format.
  static func format(of url: URL) throws(ClassificationError) -> ModelFileFormat {
    do {
      return try ModelFileFormat(contentsOf: url)
    } catch {
      throw ClassificationError(.modelUnavailable, error.message, underlying: error)
    }
  }

  /// Checks that `url` can name a model to write: an `.onnx` file, whose sidecar gets `.json`.
  ///
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when it does not end in
  ///   `.onnx`.
  package static func checkOutputName(_ url: URL) throws(ClassificationError) {
    guard url.pathExtension.lowercased() == "onnx" else {
      throw ClassificationError(
        .invalidArgument, "the model file \(url.path) must end in .onnx (its sidecar gets .json)")
    }
  }

  /// The sidecar's URL for a model file: the same path with the extension `.json`.
  static func sidecarURL(for url: URL) -> URL {
    url.deletingPathExtension().appendingPathExtension("json")
  }

  /// The description in a model's sidecar: `sidecar`, or the model's path with `.json`.
  ///
  /// - Throws: ``ClassificationError``: `modelUnavailable` when the sidecar is missing or
  ///   unreadable; `invalidModelDescription` naming a wrong sidecar field.
  static func description(
    ofModel url: URL, sidecar: URL?
  ) throws(ClassificationError) -> ModelDescription {
    let sidecarURL = sidecar ?? sidecarURL(for: url)
    guard FileManager.default.fileExists(atPath: sidecarURL.path) else {
      throw ClassificationError(
        .modelUnavailable,
        "the model \(url.lastPathComponent) needs a JSON sidecar at \(sidecarURL.path) "
          + "describing its input size, crop, normalization and labels")
    }
    return try ModelDescription(sidecarAt: sidecarURL)
  }

  /// Writes `model` at `url` and `description` as its sidecar, each to a temporary name then
  /// renamed, so a failure leaves any earlier file whole.
  ///
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `url` does not end in
  ///   `.onnx` or a file cannot be written; `invalidModelDescription` when the description
  ///   cannot be a sidecar.
  static func write(
    _ model: ONNXModel, description: ModelDescription, to url: URL
  ) throws(ClassificationError) {
    try checkOutputName(url)
    let bytes: [UInt8]
    do {
      bytes = try model.serializedBytes()
    } catch {
      throw ClassificationError(.invalidArgument, "cannot encode the model", underlying: error)
    }
    let sidecar = try description.sidecarData()
    try replace(url, with: Data(bytes))
    try replace(sidecarURL(for: url), with: sidecar)
  }

  private static func replace(_ url: URL, with data: Data) throws(ClassificationError) {
    do {
      try data.write(to: url, options: .atomic)
    } catch {
      throw ClassificationError(
        .invalidArgument, "cannot write \(url.path)",
        underlying: FileError(description: "\(error)"))
    }
  }
}
