import ClassifierKit
import Foundation
import ImagePipeline

/// End-to-end `classify` of the 12 MP photo with the real default model, at 1 and 2 threads.
///
/// Each run reads the file, decodes it (DCT-scaled, as the CLI does by default), orients, crops,
/// scales and normalizes it, runs EfficientNet-Lite0 at batch 1 and ranks the scores. Named like `Benchmarks/Scripts/reference_bench.py`'s
/// ONNX Runtime + fastest-preprocessing rows so they pair up.
enum ClassifierKitBenchmarks {
  static func all(inputs: URL) throws -> [Benchmark] {
    let photo = inputs.appendingPathComponent(BenchmarkInputs.jpeg12MP)
    do {
      _ = try DefaultModel.locateCheckpoint()
    } catch {
      FileHandle.standardError.write(
        Data("ClassifierKit cases skipped: the default model is absent (\(error.message))\n".utf8))
      return []
    }
    return try [1, 2].map { threads in
      let classifier = try NetworkClassifier.efficientNetLite0(threadCount: threads)
      return Benchmark(name: "ClassifierKit.classify.12MP.threads\(threads)") {
        blackHole(try classifier.report(for: .file(photo)))
      }
    }
  }
}
