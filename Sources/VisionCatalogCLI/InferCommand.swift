import Foundation
import VisionCatalog

/// `vision-catalog infer --model FILE.onnx|FILE.mlmodel|FILE.mlpackage --input IN.npy
/// --output OUT.npy [--threads N] [--runs R]`.
struct InferCommand: Subcommand {
  /// `--model FILE`: the network to run; unlike the classifying subcommands' `--model`, any
  /// graph, with no sidecar or labels.
  static let model = Option.text(
    "model", "FILE.onnx|FILE.mlmodel|FILE.mlpackage", isRequired: true,
    help: "the ONNX or Core ML (.mlmodel, or an ML Program's .mlpackage) model")
  /// `--input IN.npy`: the tensor fed to the network.
  static let input = Option.text(
    "input", "IN.npy", isRequired: true, help: "the input tensor (.npy)")
  /// `--output OUT.npy`: where the network's output goes.
  static let output = Option.text(
    "output", "OUT.npy", isRequired: true, help: "where to write the output tensor (.npy)")
  /// `--runs R`: time the network instead of running it once.
  static let runs = Option.integer(
    "runs", "R", in: 1...100_000, help: "time R runs after a warm-up")

  let name = "infer"
  let summary = "Run an ONNX or Core ML network on a .npy tensor and write its output as .npy."
  let synopsis = ""
  let discussion = """
    Feeds IN.npy (float32) to the model's single graph input and writes the first graph
    output to OUT.npy (float32, C order). For a Core ML model with an image input, IN.npy
    holds pixel values 0-255 as float32 [N, 3, H, W] in RGB order; the model's own scale,
    biases and colour order are applied inside, as Core ML does, and OUT.npy holds its
    scores output, one row per image. With --runs R it times R runs after one warm-up
    and prints 'kernels=SET cpu=MODEL' and 'runs=R median_ms=X min_ms=Y' on standard error.
    VISION_CATALOG_KERNELS=portable|avx2|avx512|neon forces a kernel set.
    """
  let options = [Self.model, Self.input, Self.output, ModelOptions.threads, Self.runs]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    try parsed.rejectPositionals()
    let modelPath = try parsed.required(Self.model)
    let inputPath = try parsed.required(Self.input)
    let outputPath = try parsed.required(Self.output)
    let threads = parsed.integer(ModelOptions.threads)
    let runs = parsed.integer(Self.runs)
    do {
      let runner = try ModelRunner(
        contentsOf: URL(fileURLWithPath: modelPath), options: SessionOptions(threadCount: threads))
      let input = try NPYFile.read(contentsOfFile: inputPath)
      var output = try runner.run(input)
      if let runs {
        output = try Self.time(runner, input, runs: runs)
      }
      try NPYFile.write(output, toFile: outputPath)
    } catch {
      throw CLIError.failure(from: error)
    }
  }

  /// Runs the model `runs` times after the warm-up run, printing the kernel set, the CPU and
  /// the median and fastest run on standard error.
  ///
  /// - Returns: The output of the last run.
  private static func time(_ runner: ModelRunner, _ input: Tensor, runs: Int) throws -> Tensor {
    var result = input
    var times = RunTimes()
    let clock = ContinuousClock()
    for _ in 0..<runs {
      times.record(try clock.measure { result = try runner.run(input) })
    }
    times.report("kernels=\(runner.session.kernelSet) cpu=\(RunTimes.processorName)")
    return result
  }
}
