import Foundation
import VisionCatalog

/// The options of the classifying subcommands: which model, how many labels, how many
/// threads, and how exactly photos are decoded.
enum ModelOptions {
  /// `--model default|FILE`: the classifier to load.
  static let model = Option.text(
    "model", "default|FILE",
    help: "default: EfficientNet-Lite0 (ImageNet-1k) from the model cache; FILE: an "
      + "EfficientNet-Lite0 .pth checkpoint, a Core ML .mlmodel or .mlpackage, or an .onnx "
      + "model with a JSON sidecar next to it (see ClassifierKit's docs)")
  /// `--top K`: how many of the best labels are used.
  static let top = Option.integer(
    "top", "K", in: 1...1_000,
    help: "how many labels to print, or for find to try in order (default 5)")
  /// `--threads N`: the parallelism of the network and of decoding.
  static let threads = Option.integer(
    "threads", "N", in: 1...256,
    help: "workers and threads for the network and a HEIC photo's decoding (default: all "
      + "cores)")
  /// `--exact`: JPEG photos decoded at full size.
  static let exact = Option.flag(
    "exact",
    help: "decode JPEG photos at full size, as the reference preprocessing does (default: a "
      + "large JPEG decodes at 1/2, 1/4 or 1/8 when the model input still only shrinks, "
      + "several times faster)")

  /// The options of a subcommand that loads a model by `--model` and classifies photos.
  static let all = [model, top, threads, exact]

  /// Loads the model the arguments name, printing progress on standard error.
  static func load(from arguments: CommandLineArguments) throws(CLIError) -> NetworkClassifier {
    let name = arguments.value(model) ?? "default"
    let threadCount = arguments.integer(threads)
    if let threadCount {
      // The cores the job may use: as many photos in flight as network threads.
      ComputeExecutor.shared.limits.workerCount = threadCount
    }
    StandardError.write("loading model \(name)...\n")
    do {
      return try load(model: name, threadCount: threadCount)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// How the arguments ask photos to be prepared: `--exact` turns the JPEG reduction off, and
  /// `--threads` bounds a HEIF photo's decoding as it does the network.
  static func preparation(from arguments: CommandLineArguments) -> PreparationOptions {
    PreparationOptions(
      decoding: DecodingOptions(threadCount: arguments.integer(threads)),
      jpegScaling: arguments.has(exact) ? .exact : .automatic)
  }

  /// The `--model` syntax: `default`, a `.pth` EfficientNet-Lite0 checkpoint, a Core ML
  /// `.mlmodel` or `.mlpackage`, or an ONNX file with its JSON sidecar.
  static func load(model name: String, threadCount: Int?)
    throws(ClassificationError) -> NetworkClassifier
  {
    if name == "default" {
      return try NetworkClassifier.efficientNetLite0(threadCount: threadCount)
    }
    return try NetworkClassifier.load(
      contentsOf: URL(fileURLWithPath: name), threadCount: threadCount)
  }
}
