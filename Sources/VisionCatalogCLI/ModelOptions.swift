import Foundation
import VisionCatalog

/// The `--model default|FILE`, `--threads N` and `--exact` options of the classifying
/// subcommands.
enum ModelOptions {
  static let valued: Set<String> = ["model", "threads"]
  static let flags: Set<String> = ["exact"]

  static let help = """
      --model default|FILE  default: EfficientNet-Lite0 (ImageNet-1k) from the model cache;
                            FILE: an EfficientNet-Lite0 .pth checkpoint, a Core ML
                            .mlmodel, or an .onnx model with a JSON sidecar next to it
                            (see ClassifierKit's docs)
      --threads N           workers and threads for the network and a HEIC photo's decoding
                            (default: all cores)
      --exact               decode JPEG photos at full size, as the reference preprocessing
                            does (default: a large JPEG decodes at 1/2, 1/4 or 1/8 when the
                            model input still only shrinks, several times faster)
    """

  /// Loads the model the arguments name, printing progress on standard error.
  static func load(from arguments: CommandLineArguments) throws(CLIError) -> NetworkClassifier {
    let name = arguments.value("model") ?? "default"
    let threads = try arguments.integer("threads", in: 1...256)
    if let threads {
      // The cores the job may use: as many photos in flight as network threads.
      ComputeExecutor.shared.limits.workerCount = threads
    }
    StandardError.write("loading model \(name)...\n")
    do {
      return try load(model: name, threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// How the arguments ask photos to be prepared: `--exact` turns the JPEG reduction off, and
  /// `--threads` bounds a HEIF photo's decoding as it does the network.
  static func preparation(from arguments: CommandLineArguments) throws(CLIError)
    -> PreparationOptions
  {
    let threads = try arguments.integer("threads", in: 1...256)
    return PreparationOptions(
      decoding: DecodingOptions(threadCount: threads),
      jpegScaling: arguments.has("exact") ? .exact : .automatic)
  }

  /// The `--model` syntax: `default`, a `.pth` EfficientNet-Lite0 checkpoint, a Core ML
  /// `.mlmodel`, or an ONNX file with its JSON sidecar.
  static func load(model name: String, threadCount: Int?)
    throws(ClassificationError) -> NetworkClassifier
  {
    if name == "default" {
      return try NetworkClassifier.efficientNetLite0(threadCount: threadCount)
    }
    let url = URL(fileURLWithPath: name)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw ClassificationError(.modelUnavailable, "the model file \(name) does not exist")
    }
    switch url.pathExtension.lowercased() {
    case "pth":
      return try NetworkClassifier.efficientNetLite0(checkpoint: url, threadCount: threadCount)
    case "mlmodel", "mlpackage":
      return try NetworkClassifier.coreML(contentsOf: url, threadCount: threadCount)
    default:
      break
    }
    return try NetworkClassifier.onnx(contentsOf: url, threadCount: threadCount)
  }
}
