import VisionCatalog

/// The `--model default|FILE`, `--threads N` and `--exact` options of the classifying
/// subcommands.
enum ModelOptions {
  static let valued: Set<String> = ["model", "threads"]
  static let flags: Set<String> = ["exact"]

  static let help = """
      --model default|FILE  default: EfficientNet-Lite0 (ImageNet-1k) from the model cache;
                            FILE: an EfficientNet-Lite0 .pth checkpoint, or an .onnx model
                            with a JSON sidecar next to it (see ClassifierKit's docs)
      --threads N           threads for the network (default: all cores)
      --exact               decode JPEG photos at full size, as the reference preprocessing
                            does (default: a large JPEG decodes at 1/2, 1/4 or 1/8 when the
                            model input still only shrinks, several times faster)
    """

  /// Loads the model the arguments name, printing progress on standard error.
  static func load(from arguments: CommandLineArguments) throws(CLIError) -> NetworkClassifier {
    let name = arguments.value("model") ?? "default"
    let threads = try arguments.integer("threads", in: 1...256)
    StandardError.write("loading model \(name)...\n")
    do {
      var classifier = try NetworkClassifier.load(model: name, threadCount: threads)
      classifier.jpegScaling = arguments.has("exact") ? .exact : .automatic
      return classifier
    } catch {
      throw CLIError.failure(error.message)
    }
  }
}
