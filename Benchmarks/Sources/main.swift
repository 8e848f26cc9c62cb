import Foundation

// Usage:
//   swift run -c release Benchmarks [--filter TEXT] [--tsv] [--min-seconds S] [--inputs DIR]
//   swift run -c release Benchmarks --make-inputs DIR
//   swift run -c release Benchmarks --profile   (every step of Lite0 at 1 and 2 threads)
//   swift run -c release Benchmarks --profile MODEL.onnx [--runs R] INPUT.npy   (any model;
//     the best of 5 sets of R runs, 30 by default)
//   swift run -c release Benchmarks --dct-accuracy PHOTO...
//
// Inputs are made at run time from the bundled sample photo (see BenchmarkInputs), so the
// comparison scripts can time the reference tools on the very same files.
let arguments = CommandLine.arguments.dropFirst()

func value(after flag: String) -> String? {
  guard let index = arguments.firstIndex(of: flag),
    arguments.index(after: index) < arguments.endIndex
  else { return nil }
  return arguments[arguments.index(after: index)]
}

do {
  if let start = arguments.firstIndex(of: "--dct-accuracy") {
    try DCTAccuracy.run(paths: Array(arguments[arguments.index(after: start)...]))
    exit(0)
  }
  let inputs = URL(
    fileURLWithPath: value(after: "--inputs") ?? value(after: "--make-inputs")
      ?? ".cache/bench-inputs")
  try BenchmarkInputs.make(in: inputs)
  if arguments.contains("--make-inputs") {
    exit(0)
  }
  var runner = BenchmarkRunner()
  runner.tabSeparated = arguments.contains("--tsv")
  if let seconds = value(after: "--min-seconds").flatMap(Double.init) {
    runner.minimumSeconds = seconds
  }
  let filter = value(after: "--filter") ?? ""
  var all =
    try ImagePipelineBenchmarks.all(inputs: inputs) + CatalogClientBenchmarks.all()
    + (filter.isEmpty || "ImagePipeline.barcodes.photo-12mp".contains(filter)
      ? BarcodeBenchmarks.all() : [])
  if let model = value(after: "--profile"),
    [".onnx", ".mlmodel", ".mlpackage"].contains(where: { model.hasSuffix($0) }),
    let input = arguments.last, input.hasSuffix(".npy")
  {
    let runs = value(after: "--runs").flatMap(Int.init) ?? 30
    try NeuralCoreBenchmarks.printProfile(model: model, input: input, runs: max(1, runs))
    exit(0)
  }
  if let models = NeuralCoreBenchmarks.modelsDirectory {
    if arguments.contains("--profile") {
      try NeuralCoreBenchmarks.printProfile(modelsDirectory: models)
      exit(0)
    }
    all += try NeuralCoreBenchmarks.all(modelsDirectory: models)
  } else {
    FileHandle.standardError.write(
      Data("NeuralCore cases skipped: ../shared/models is absent\n".utf8))
  }
  if let zoo = NeuralCoreBenchmarks.zooDirectory {
    all += try NeuralCoreBenchmarks.zoo(directory: zoo, filter: filter)
  } else {
    FileHandle.standardError.write(
      Data("NeuralCore zoo cases skipped: run Benchmarks/Scripts/make_zoo_models.py\n".utf8))
  }
  all += try Int8Benchmarks.all(filter: filter)
  if MLProgramBenchmarks.files != nil {
    all += try MLProgramBenchmarks.all(filter: filter)
  } else {
    FileHandle.standardError.write(
      Data("ML Program cases skipped: run Scripts/coreml-fixtures/generate.sh\n".utf8))
  }
  all += try ClassifierKitBenchmarks.all(inputs: inputs)
  all += try ServingBenchmarks.all(inputs: inputs)
  try runner.run(all.filter { filter.isEmpty || $0.name.contains(filter) })
} catch {
  FileHandle.standardError.write(Data("Benchmarks: \(error)\n".utf8))
  exit(1)
}
