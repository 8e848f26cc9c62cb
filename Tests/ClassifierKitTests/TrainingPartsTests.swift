import Foundation
import ImagePipeline
import Testing

@testable import ClassifierKit

/// The trainer's parts that need no network: augmentations, metrics, the validation split, the
/// feature cache and the sidecar a trained model is saved with.
struct TrainingPartsTests {
  static let spec = ModelInputSpec.efficientNetLite(size: 32)

  /// A smooth, non-symmetric test input in the spec's normalized range.
  static func input() -> [Float] {
    (0..<(3 * 32 * 32)).map { index in
      let x = Float(index % 32)
      let y = Float((index / 32) % 32)
      let plane = Float(index / (32 * 32))
      return ((x * 5 + y * 3 + plane * 40).truncatingRemainder(dividingBy: 255) - 127) / 128
    }
  }

  @Test func augmentationsAreSeededAndStayInRange() {
    for augmentation in TrainingAugmentation.allCases {
      var first = SplitMix64(seed: 7, mixing: [1, 2])
      var second = SplitMix64(seed: 7, mixing: [1, 2])
      var other = SplitMix64(seed: 8, mixing: [1, 2])
      let a = augmentation.apply(to: Self.input(), spec: Self.spec, generator: &first)
      let b = augmentation.apply(to: Self.input(), spec: Self.spec, generator: &second)
      let c = augmentation.apply(to: Self.input(), spec: Self.spec, generator: &other)
      #expect(a == b, "\(augmentation) is not deterministic")
      #expect(a != Self.input(), "\(augmentation) changed nothing")
      if augmentation != .flip { #expect(a != c, "\(augmentation) ignores the seed") }
      #expect(a.allSatisfy { $0 >= -127.0 / 128 - 1e-5 && $0 <= 1 + 1e-5 }, "\(augmentation)")
    }
  }

  @Test func flipMirrorsRowsAndExposureScalesLevels() {
    var generator = SplitMix64(seed: 1)
    let input = Self.input()
    let mirrored = TrainingAugmentation.flip.apply(
      to: input, spec: Self.spec, generator: &generator)
    #expect(mirrored[0] == input[31] && mirrored[32 + 5] == input[32 + 26])
    #expect(
      TrainingAugmentation.flip.apply(to: mirrored, spec: Self.spec, generator: &generator)
        == input)
    // A flat image stays flat under blur, and exposure multiplies its level (clamped).
    let flat = [Float](repeating: (100 - 127) / 128, count: 3 * 32 * 32)
    let blurred = TrainingAugmentation.blur.apply(to: flat, spec: Self.spec, generator: &generator)
    #expect(blurred.allSatisfy { abs($0 - flat[0]) < 1e-5 })
    let exposed = TrainingAugmentation.exposure.apply(
      to: flat, spec: Self.spec, generator: &generator)
    let factor = (exposed[0] * 128 + 127) / 100
    #expect(factor >= 0.5 - 1e-3 && factor <= 2 + 1e-3)
    #expect(exposed.allSatisfy { abs($0 - exposed[0]) < 1e-6 })
  }

  @Test func metricsMatchAHandCount() throws {
    // truth:     a a a b b c
    // predicted: a b a b - a   ("-" is no label)
    let metrics = try ClassificationMetrics(
      labels: ["a", "b", "c"], truth: [0, 0, 0, 1, 1, 2], predicted: [0, 1, 0, 1, nil, 0])
    #expect(metrics.accuracy == 3.0 / 6)
    #expect(metrics.confusion == [[2, 1, 0, 0], [0, 1, 0, 1], [1, 0, 0, 0]])
    #expect(metrics.perLabel[0] == .init(precision: 2.0 / 3, recall: 2.0 / 3, count: 3))
    #expect(metrics.perLabel[1] == .init(precision: 1.0 / 2, recall: 1.0 / 2, count: 2))
    #expect(metrics.perLabel[2] == .init(precision: 0, recall: 0, count: 1))
    #expect(throws: ClassificationError.self) {
      try ClassificationMetrics(labels: ["a"], truth: [0, 1], predicted: [0, 0])
    }
  }

  /// Create ML's rule: no validation under 50 photos, 10 % from 50 to 199, 5 % from 200; each
  /// label keeps at least one training photo; the split depends only on the seed.
  @Test func automaticValidationFollowsCreateMLsRule() throws {
    func photos(_ count: Int) -> [TrainingPhoto] {
      (0..<count).map {
        TrainingPhoto(
          label: $0 % 2 == 0 ? "even" : "odd",
          source: .data(Data([UInt8($0 % 256)]), name: "p\($0)"))
      }
    }
    let rule = ClassifierTrainer.Validation.automatic
    let labels = ["even", "odd"]
    for (count, held) in [(49, 0), (50, 6), (120, 12), (199, 20), (200, 10), (400, 20)] {
      let split = try rule.split(photos(count), labels: labels, seed: 0)
      #expect(split.validation.count == held, "\(count) photos")
      #expect(split.training.count + split.validation.count == count)
    }
    let again = try rule.split(photos(120), labels: labels, seed: 0)
    let first = try rule.split(photos(120), labels: labels, seed: 0)
    #expect(again.validation.map(\.source.name) == first.validation.map(\.source.name))
    let other = try rule.split(photos(120), labels: labels, seed: 99)
    #expect(other.validation.map(\.source.name) != first.validation.map(\.source.name))
  }

  @Test func theFeatureCacheReadsWhatItWroteAndIgnoresDamage() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("feature-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = FeatureCache(directory: folder, identity: "backbone", featureCount: 4)
    #expect(cache.features(for: "abcd") == nil)
    cache.store([1, -2.5, 3e-7, 0], for: "abcd")
    #expect(cache.features(for: "abcd") == [1, -2.5, 3e-7, 0])
    let file = folder.appendingPathComponent("backbone/ab/abcd.f32")
    try Data([1, 2, 3]).write(to: file)
    #expect(cache.features(for: "abcd") == nil)
    #expect(
      FeatureCache(directory: folder, identity: "backbone", featureCount: 5).features(for: "abcd")
        == nil)
  }

  @Test func aSidecarRoundTripsWithInlineLabelsAndThreshold() throws {
    let description = ModelDescription(
      name: "trained", input: .efficientNetLite(size: 224),
      labels: ["Cats", "Pizza", "Ro\"ck\u{e9}ts"],
      inputName: "input", outputName: "logits", unknownThreshold: 0.4375)
    let data = try description.sidecarData()
    let read = try ModelDescription(
      sidecarData: data, relativeTo: FileManager.default.temporaryDirectory)
    #expect(read == description)
    #expect(try description.sidecarData() == data)
    for bad in [
      #"{"inputSize": 8, "mean": 0, "std": 1, "labels": []}"#,
      #"{"inputSize": 8, "mean": 0, "std": 1, "labels": ["a", 3]}"#,
      #"{"inputSize": 8, "mean": 0, "std": 1, "labels": ["a"], "unknownThreshold": 1.5}"#,
    ] {
      #expect(throws: ClassificationError.self) {
        try ModelDescription(sidecarData: Data(bad.utf8), relativeTo: URL(fileURLWithPath: "/"))
      }
    }
  }
}
