import ClassifierKit
import Foundation
import ImagePipeline
import Testing

/// The trainer on real photos: the same held-out accuracy and probabilities as scikit-learn's
/// `LogisticRegression` fitted on ONNX Runtime's features of the same photos, the same bytes for
/// the same seed, learning with augmentations, and bad input refused or skipped with a reason.
@Suite(.enabled(if: TrainerFixtures.isAvailable, TrainerFixtures.skipReason))
struct ClassifierTrainerTests {
  static func trainer(_ options: ClassifierTrainer.Options = .init()) throws -> ClassifierTrainer {
    ClassifierTrainer(extractor: try #require(TrainerFixtures.extractor), options: options)
  }

  // Debug builds compile the C kernels without optimization, about 20 times slower, so the two
  // tests that extract features of every fixture photo (about 900 network runs) are release
  // only; `.ci/run`'s release job runs them. Debug builds run the others on fewer photos.
  #if !DEBUG
    /// Held-out accuracy within 2 percentage points of scikit-learn's (the "Done when" bound), and
    /// every held-out probability within 2e-3 of scikit-learn's: both fits reach the unique optimum
    /// of the same objective, so what is left is ONNX Runtime's and our features' float rounding.
    @Test func heldOutResultsMatchScikitLearn() throws {
      let reference = try #require(TrainerFixtures.reference)
      let test = try TrainerFixtures.labeled("test")
      var options = ClassifierTrainer.Options(validation: .photos(test), maximumIterations: 2_000)
      options.balancesClasses = false
      let trained = try Self.trainer(options).train(try TrainerFixtures.labeled("train"))
      #expect(trained.description.labels == reference.classes)
      #expect(trained.fit.converged)
      let validation = try #require(trained.validation)
      #expect(abs(validation.accuracy - reference.heldOutAccuracy) <= 0.02)
      #expect(abs(trained.training.accuracy - reference.trainingAccuracy) <= 0.02)
      let classifier = try trained.classifier()
      var largest: Float = 0
      for photo in test {
        let report = try classifier.classify(
          photo.source, options: ClassificationOptions(maximumCount: reference.classes.count))
        let name = URL(fileURLWithPath: photo.source.name)
        let key = "\(photo.label)/\(name.lastPathComponent)"
        let expected = try #require(reference.heldOut[key], "no reference for \(key)")
        for classification in report.classifications {
          largest = max(
            largest, abs(classification.confidence - expected.probabilities[classification.index]))
        }
      }
      print(
        "trainer vs scikit-learn: held-out accuracy \(validation.accuracy) vs \(reference.heldOutAccuracy), largest probability difference \(largest)"
      )
      #expect(largest <= 2e-3)
    }

  #endif

  /// The same photos, options and seed give the same files, whether the features come from the
  /// cache or from the network; another seed gives other augmentations and so another model.
  @Test func theSameSeedWritesTheSameBytes() throws {
    let folder = try TrainerFixtures.temporaryFolder("trainer-determinism")
    defer { try? FileManager.default.removeItem(at: folder) }
    let photos = try Self.photos(labels: ["chelsea", "coffee", "rocket"], debugCount: 2)
    var options = ClassifierTrainer.Options(
      validation: .none, maximumIterations: 30, augmentations: [.flip, .crop, .noise], seed: 7)
    options.featureCache = folder.appendingPathComponent("cache")
    var files: [Data] = []
    for (index, seed) in [7, 7, 8].enumerated() {
      options.seed = UInt64(seed)
      let url = folder.appendingPathComponent("model\(index).onnx")
      try Self.trainer(options).train(photos).write(to: url)
      files.append(
        try Data(contentsOf: url) + Data(contentsOf: TrainedClassifier.sidecarURL(for: url)))
    }
    #expect(files[0] == files[1])
    #expect(files[0] != files[2])
    // Cold cache, no cache: the same bytes again.
    options.seed = 7
    options.featureCache = nil
    let url = folder.appendingPathComponent("uncached.onnx")
    try Self.trainer(options).train(photos).write(to: url)
    #expect(
      try Data(contentsOf: url) + Data(contentsOf: TrainedClassifier.sidecarURL(for: url))
        == files[0])
  }

  #if !DEBUG
    /// All six augmentations: six changed copies per photo, and a classifier that still labels
    /// held-out photos about as well as scikit-learn's fit without them.
    @Test func augmentedTrainingStillLearns() throws {
      let reference = try #require(TrainerFixtures.reference)
      let train = try TrainerFixtures.labeled("train")
      let options = ClassifierTrainer.Options(
        validation: .photos(try TrainerFixtures.labeled("test")),
        augmentations: TrainingAugmentation.allCases, seed: 3,
        unknownThreshold: .calibrated(keeping: 0.95))
      let trained = try Self.trainer(options).train(train)
      #expect(trained.sampleCount == train.count * 7)
      let validation = try #require(trained.validation)
      print(
        "augmented: held-out accuracy \(validation.accuracy) (reference without: \(reference.heldOutAccuracy))"
      )
      #expect(validation.accuracy >= reference.heldOutAccuracy - 0.1)
      let threshold = try #require(trained.description.unknownThreshold)
      #expect(threshold > 0 && threshold < 1)
    }
  #endif

  /// The training photos of `labels`: all of them in release builds; in debug builds
  /// `debugCount` per label.
  static func photos(labels: Set<String>, debugCount: Int = 3) throws -> [TrainingPhoto] {
    let all = try TrainerFixtures.labeled("train", labels: labels)
    #if DEBUG
      return labels.sorted().flatMap { label in
        all.filter { $0.label == label }.prefix(debugCount)
      }
    #else
      return all
    #endif
  }

  @Test func tooFewLabelsAndMissingPhotosAreRefused() throws {
    let trainer = try Self.trainer()
    let one = try TrainerFixtures.labeled("train", labels: ["chelsea"])
    let error = #expect(throws: ClassificationError.self) { try trainer.train(one) }
    #expect(error?.message.contains("at least two labels") == true)
    #expect(throws: ClassificationError.self) { try trainer.train([]) }
    let empty = try TrainerFixtures.temporaryFolder("trainer-empty")
    defer { try? FileManager.default.removeItem(at: empty) }
    try FileManager.default.createDirectory(
      at: empty.appendingPathComponent("cats"), withIntermediateDirectories: true)
    let listing = #expect(throws: ClassificationError.self) {
      try TrainingPhoto.labeledFolders(at: empty)
    }
    #expect(listing?.message.contains("holds no photos") == true)
  }

  /// Unreadable photos are skipped with their reason; a label left with none is an error naming
  /// it; the photos given are not changed.
  @Test func unreadablePhotosAreSkippedAndNothingGivenChanges() throws {
    let good = try Self.photos(labels: ["chelsea", "rocket"])
    let garbage = [
      TrainingPhoto(label: "chelsea", source: .data(Data("not an image".utf8), name: "text.png")),
      TrainingPhoto(
        label: "rocket", source: .data(Data([0x89, 0x50, 0x4E, 0x47]), name: "cut.png")),
      TrainingPhoto(label: "rocket", source: .file(URL(fileURLWithPath: "/nonexistent/x.jpg"))),
    ]
    let before = try good.map { try Data(contentsOf: URL(fileURLWithPath: $0.source.name)) }
    let trained = try Self.trainer(.init(validation: .none, maximumIterations: 20))
      .train(good + garbage)
    #expect(trained.skipped.map(\.name) == ["text.png", "cut.png", "/nonexistent/x.jpg"])
    #expect(trained.skipped.allSatisfy { !$0.reason.isEmpty })
    #expect(trained.training.count == good.count)
    let after = try good.map { try Data(contentsOf: URL(fileURLWithPath: $0.source.name)) }
    #expect(before == after)
    let onlyGarbage =
      good.filter { $0.label == "chelsea" } + garbage.filter { $0.label == "rocket" }
    let error = #expect(throws: ClassificationError.self) {
      try Self.trainer(.init(validation: .none)).train(onlyGarbage)
    }
    #expect(error?.message.contains("'rocket' has no readable training photo") == true)
  }
}
