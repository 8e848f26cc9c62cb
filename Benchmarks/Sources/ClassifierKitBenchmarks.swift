import ClassifierKit
import Foundation
import ImagePipeline

/// End-to-end ClassifierKit cases with the real default model.
///
/// - `ClassifierKit.classify.12MP.threads1/2`: `classify` of the 12 MP photo. Each run reads the
///   file, decodes it (DCT-scaled, as the CLI does by default), orients, crops, scales and
///   normalizes it, runs EfficientNet-Lite0 at batch 1 and ranks the scores.
/// - `ClassifierKit.features.bench1000.batch8.threads2`: the trainer's feature extraction on
///   ``benchPhotoCount`` photos of the 1,000-photo benchmark set, per photo (photos per second
///   is 1000 / ms). Each run reads, decodes and prepares the photos as `vision-catalog train`
///   does (DCT-scaled JPEG decode where the crop allows it) and runs the backbone
///   (`FeatureExtractor`, 2 threads) on batches of 8.
/// - `ClassifierKit.features.bench1000.prepare`: the same photos read, decoded and prepared
///   only, per photo (the share of the case above that is not the network).
///
/// Named like `Benchmarks/Scripts/reference_bench.py`'s ONNX Runtime + fastest-preprocessing
/// rows so they pair up.
enum ClassifierKitBenchmarks {
  /// How many photos one run of a `features` case reads: every ``benchPhotoStride``-th of the
  /// set's files in sorted path order (all ten labels), about a second per run.
  static let benchPhotoCount = 64
  static let benchPhotoStride = 15

  /// `.cache/trainer-reference/bench-1000` of this checkout, made by
  /// `Scripts/trainer-reference/generate.sh` (`dataset.py --bench`).
  static let benchDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(".cache/trainer-reference/bench-1000")

  static func all(inputs: URL) throws -> [Benchmark] {
    let photo = inputs.appendingPathComponent(BenchmarkInputs.jpeg12MP)
    do {
      _ = try DefaultModel.locateCheckpoint()
    } catch {
      FileHandle.standardError.write(
        Data("ClassifierKit cases skipped: the default model is absent (\(error.message))\n".utf8))
      return []
    }
    let classify = try [1, 2].map { threads in
      let classifier = try NetworkClassifier.efficientNetLite0(threadCount: threads)
      return Benchmark(name: "ClassifierKit.classify.12MP.threads\(threads)") {
        blackHole(try classifier.classify(.file(photo)))
      }
    }
    return classify + (try features())
  }

  /// The benchmark photos: every ``benchPhotoStride``-th JPEG of the set in sorted path order.
  static func benchPhotos() -> [URL]? {
    let manager = FileManager.default
    guard
      let labels = try? manager.contentsOfDirectory(atPath: benchDirectory.path)
    else { return nil }
    var all: [String] = []
    for label in labels {
      let folder = benchDirectory.appendingPathComponent(label)
      let files = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
      all += files.filter { $0.hasSuffix(".jpg") }.map { "\(label)/\($0)" }
    }
    all.sort()
    let picked = Array(stride(from: 0, to: all.count, by: benchPhotoStride).prefix(benchPhotoCount))
    guard picked.count == benchPhotoCount else { return nil }
    return picked.map { benchDirectory.appendingPathComponent(all[$0]) }
  }

  private static func features() throws -> [Benchmark] {
    guard let photos = benchPhotos() else {
      FileHandle.standardError.write(
        Data(
          ("ClassifierKit.features cases skipped: \(benchDirectory.path) is absent or holds "
            + "too few JPEGs for \(benchPhotoCount) taken every \(benchPhotoStride)th "
            + "(run Scripts/trainer-reference/generate.sh)\n").utf8))
      return []
    }
    let extractor = try FeatureExtractor.efficientNetLite0(threadCount: 2)
    let spec = extractor.inputSpec
    @Sendable func prepare(_ url: URL) throws -> ModelInput {
      let source = try ImageSource.file(url).loaded()
      return try spec.tensor(fromDecoded: spec.decode(source))
    }
    let batch = 8
    return [
      Benchmark(
        name: "ClassifierKit.features.bench1000.batch8.threads2", itemsPerRun: photos.count
      ) {
        var start = 0
        while start < photos.count {
          let end = min(photos.count, start + batch)
          let inputs = try photos[start..<end].map(prepare)
          blackHole(try extractor.features(for: inputs))
          start = end
        }
      },
      Benchmark(name: "ClassifierKit.features.bench1000.prepare", itemsPerRun: photos.count) {
        for url in photos {
          blackHole(try prepare(url))
        }
      },
    ]
  }
}
