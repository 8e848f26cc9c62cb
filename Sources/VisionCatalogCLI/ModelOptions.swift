import VisionCatalog

/// The `--model default|FILE` and `--threads N` options of the classifying subcommands.
enum ModelOptions {
  static let valued: Set<String> = ["model", "threads"]

  static let help = """
      --model default|FILE  default: EfficientNet-Lite0 (ImageNet-1k) from the model cache;
                            FILE: an EfficientNet-Lite0 .pth checkpoint, or an .onnx model
                            with a JSON sidecar next to it (see ClassifierKit's docs)
      --threads N           threads for the network (default: all cores)
    """

  /// Loads the model the arguments name, printing progress on standard error.
  static func load(from arguments: CommandLineArguments) throws(CLIError) -> NetworkClassifier {
    let name = arguments.value("model") ?? "default"
    let threads = try arguments.integer("threads", in: 1...256)
    StandardError.write("loading model \(name)...\n")
    do {
      return try NetworkClassifier.load(model: name, threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
  }
}
