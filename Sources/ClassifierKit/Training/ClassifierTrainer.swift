public import Foundation
import ImagePipeline

/// Trains an image classifier for your own labels, as Create ML's image classifier does: a
/// multinomial logistic-regression head on EfficientNet-Lite0's pooled features.
///
/// ```swift
/// let photos = try TrainingPhoto.labeledFolders(at: URL(fileURLWithPath: "Photos"))
/// let trainer = try ClassifierTrainer.efficientNetLite0()
/// let trained = try trainer.train(photos)
/// try trained.write(to: URL(fileURLWithPath: "Products.onnx"))  // and Products.json
/// ```
///
/// Training is deterministic: the same photos, options and seed give the same model bit for
/// bit. Features are cached on disk by the photo bytes' SHA-256 when
/// ``Options/featureCache`` is set, so a second run costs only its new photos.
public struct ClassifierTrainer: Sendable {
  /// Which photos check the classifier instead of training it.
  public enum Validation: Sendable {
    /// Create ML's rule: none below 50 photos, 10 % from 50 to 199, 5 % from 200.
    case automatic
    /// This share of each label's photos, `0 < share < 1`.
    case fraction(Double)
    /// No validation photos.
    case none
    /// These photos; their labels must be among the training labels.
    case photos([TrainingPhoto])
  }

  /// How the confidence below which a photo is of no label is set.
  public enum UnknownThreshold: Sendable, Hashable {
    /// No threshold: every photo gets a label.
    case none
    /// The highest threshold that still keeps this share (such as 0.95) of the validation
    /// photos the classifier labels correctly; needs validation photos.
    case calibrated(keeping: Double)
    /// This confidence, `0...1`.
    case fixed(Float)
  }

  /// How a classifier is trained.
  public struct Options: Sendable {
    /// The validation photos; ``Validation/automatic`` by default.
    public var validation: Validation
    /// The most L-BFGS iterations of the head's fit (it stops earlier when converged).
    public var maximumIterations: Int
    /// The changed copies added of each training photo; none by default.
    public var augmentations: [TrainingAugmentation]
    /// The seed of the validation split and the augmentations.
    public var seed: UInt64
    /// Weighs each label's photos by `n / (labels * n_label)` so unbalanced folders count
    /// alike; on by default (it changes nothing when folders are balanced).
    public var balancesClasses: Bool
    /// scikit-learn's `C`, the inverse strength of the L2 penalty; 1 by default.
    public var inverseRegularization: Double
    /// The unknown threshold; none by default.
    public var unknownThreshold: UnknownThreshold
    /// The folder of the feature cache; `nil` caches nothing.
    public var featureCache: URL?
    /// How photos are decoded (limits, JPEG reduction), as for classifying.
    public var preparation: PreparationOptions

    /// Options; every parameter has the default its property describes.
    public init(
      validation: Validation = .automatic, maximumIterations: Int = 100,
      augmentations: [TrainingAugmentation] = [], seed: UInt64 = 0, balancesClasses: Bool = true,
      inverseRegularization: Double = 1, unknownThreshold: UnknownThreshold = .none,
      featureCache: URL? = nil, preparation: PreparationOptions = .default
    ) {
      self.validation = validation
      self.maximumIterations = maximumIterations
      self.augmentations = augmentations
      self.seed = seed
      self.balancesClasses = balancesClasses
      self.inverseRegularization = inverseRegularization
      self.unknownThreshold = unknownThreshold
      self.featureCache = featureCache
      self.preparation = preparation
    }
  }

  /// Where a training run is.
  public enum Progress: Sendable, Hashable {
    /// Photos read so far (decoded or found in the cache), of `total`; `failed` were skipped.
    case extracting(done: Int, total: Int, failed: Int)
    /// The head is being fitted to `samples` feature vectors.
    case fitting(samples: Int)
  }

  /// The backbone.
  package let extractor: FeatureExtractor
  /// The options.
  public var options: Options

  /// A trainer on a backbone.
  ///
  /// - Parameters:
  ///   - extractor: The feature extractor.
  ///   - options: How to train.
  package init(extractor: FeatureExtractor, options: Options = Options()) {
    self.extractor = extractor
    self.options = options
  }

  /// A trainer on EfficientNet-Lite0's features, loaded from its checkpoint.
  ///
  /// - Parameters:
  ///   - checkpoint: The `efficientnet-lite0-57934424.pth` file; `nil` searches
  ///     `<cache>/models/` in `$VISION_CATALOG_CACHE`, then `$XDG_CACHE_HOME/vision-catalog` (or
  ///     `~/.cache/vision-catalog`), then `.cache` in the package checkout.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  ///   - options: How to train.
  /// - Returns: The trainer.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the checkpoint is
  ///   missing or not an EfficientNet-Lite0 checkpoint, or `VISION_CATALOG_KERNELS` names a
  ///   kernel set this CPU lacks.
  public static func efficientNetLite0(
    checkpoint: URL? = nil, threadCount: Int? = nil, options: Options = Options()
  ) throws(ClassificationError) -> ClassifierTrainer {
    ClassifierTrainer(
      extractor: try .efficientNetLite0(checkpoint: checkpoint, threadCount: threadCount),
      options: options)
  }

  /// Trains a classifier on labeled photos.
  ///
  /// Photos that cannot be read or decoded are skipped and listed in
  /// ``TrainedClassifier/skipped``; nothing given is changed.
  ///
  /// - Parameters:
  ///   - photos: The labeled photos, such as ``TrainingPhoto/labeledFolders(at:)`` gives.
  ///   - progress: Called as photos are read and when the fit starts.
  /// - Returns: The classifier, its metrics and what was skipped.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when there are fewer than two
  ///   labels, a label has no readable training photo, validation labels are not training
  ///   labels, or the options are out of range; `inferenceFailed` when the backbone fails.
  public func train(
    _ photos: [TrainingPhoto], progress: (Progress) -> Void = { _ in }
  ) throws(ClassificationError) -> TrainedClassifier {
    let labels = Array(Set(photos.map(\.label))).sorted()
    guard labels.count >= 2 else {
      throw ClassificationError(
        .invalidArgument,
        "training needs photos of at least two labels; found "
          + (labels.isEmpty ? "none" : "only '\(labels[0])'"))
    }
    try checkOptions()
    let (training, validation) = try options.validation.split(
      photos, labels: labels, seed: options.seed)
    var reader = FeatureReader(
      extractor: extractor, options: options, total: training.count + validation.count)
    let trainingSamples = try reader.read(
      training, labels: labels, augmented: true, progress: progress)
    let validationSamples = try reader.read(
      validation, labels: labels, augmented: false, progress: progress)
    for (index, label) in labels.enumerated() where !trainingSamples.all.labels.contains(index) {
      let reasons = reader.skipped.filter { $0.label == label }.prefix(3)
        .map { "\($0.name): \($0.reason)" }
      throw ClassificationError(
        .invalidArgument,
        "label '\(label)' has no readable training photo"
          + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"))
    }
    progress(.fitting(samples: trainingSamples.all.labels.count))
    let (head, report) = try SoftmaxRegression.fit(
      features: trainingSamples.all.features, featureCount: extractor.featureCount,
      labels: trainingSamples.all.labels, classCount: labels.count,
      options: SoftmaxRegression.Options(
        inverseRegularization: options.inverseRegularization,
        balancesClasses: options.balancesClasses, maximumIterations: options.maximumIterations))
    let trainingMetrics = try trainingSamples.originals.metrics(of: head, labels: labels)
    let validationMetrics =
      validation.isEmpty ? nil : try validationSamples.originals.metrics(of: head, labels: labels)
    let threshold = try unknownThreshold(head: head, validation: validationSamples.originals)
    return try TrainedClassifier(
      labels: labels, head: head, extractor: extractor, unknownThreshold: threshold,
      training: trainingMetrics, validation: validationMetrics, fit: report,
      sampleCount: trainingSamples.all.labels.count, skipped: reader.skipped)
  }

  private func checkOptions() throws(ClassificationError) {
    guard options.maximumIterations >= 1 else {
      throw ClassificationError(.invalidArgument, "the iteration count must be at least 1")
    }
    if case .fraction(let share) = options.validation, !(share > 0 && share < 1) {
      throw ClassificationError(
        .invalidArgument, "the validation share must be between 0 and 1, not \(share)")
    }
    switch options.unknownThreshold {
    case .calibrated(let keeping) where !(keeping > 0 && keeping <= 1):
      throw ClassificationError(
        .invalidArgument, "the share kept by the unknown threshold must be in 0 < s <= 1")
    case .fixed(let value) where !(0...1).contains(value):
      throw ClassificationError(
        .invalidArgument, "the unknown threshold must be a confidence in 0...1, not \(value)")
    default:
      break
    }
  }

  /// The threshold ``Options/unknownThreshold`` asks for.
  private func unknownThreshold(head: SoftmaxRegression, validation: LabeledFeatures)
    throws(ClassificationError) -> Float?
  {
    switch options.unknownThreshold {
    case .none:
      return nil
    case .fixed(let value):
      return value
    case .calibrated(let keeping):
      let confidences = validation.correctConfidences(of: head).sorted()
      guard !confidences.isEmpty else {
        throw ClassificationError(
          .invalidArgument,
          "calibrating the unknown threshold needs validation photos the classifier labels "
            + "correctly; there are none")
      }
      let dropped = Int((Double(confidences.count) * (1 - keeping)).rounded(.down))
      return confidences[min(dropped, confidences.count - 1)]
    }
  }

  /// FNV-1a of a string's UTF-8 bytes: a stable number for seeding.
  static func fingerprint(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
  }
}
