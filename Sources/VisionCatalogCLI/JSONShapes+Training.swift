import VisionCatalog

extension JSONShapes {
  /// A label's figures in `per_class`.
  struct LabelFigures: Encodable {
    let precision: Double
    let recall: Double
    let count: Int
  }

  /// A photo `train` or `evaluate` could not use.
  struct Skipped: Encodable {
    let file: String
    let label: String
    let reason: String

    init(_ photo: SkippedPhoto) {
      file = photo.name
      label = photo.label
      reason = photo.reason
    }
  }

  /// `evaluate --json`: accuracy, classes, per-class figures and the confusion matrix
  /// (`confusion[truth][predicted]` in `classes` order), plus the photos counted and skipped and
  /// those given a label outside `classes` or none (`unlabeled`).
  struct Evaluate: Encodable {
    let accuracy: Double
    let classes: [String]
    let perClass: [String: LabelFigures]
    let confusion: [[Int]]
    let photos: Int
    let unlabeled: Int
    let skipped: [Skipped]

    enum CodingKeys: String, CodingKey {
      case accuracy, classes, confusion, photos, unlabeled, skipped
      case perClass = "per_class"
    }

    init(_ metrics: ClassificationMetrics, skipped: [SkippedPhoto]) {
      accuracy = metrics.accuracy
      classes = metrics.labels
      perClass = JSONShapes.figures(metrics)
      confusion = metrics.confusion.map { Array($0.prefix(metrics.labels.count)) }
      photos = metrics.count
      unlabeled = metrics.confusion.reduce(0) { $0 + ($1.last ?? 0) }
      self.skipped = skipped.map(Skipped.init)
    }
  }

  /// `train --json`: `training_accuracy`, `validation_accuracy` (`null` without validation
  /// photos), `classes`, and `per_class` and `confusion` of the validation photos (of the
  /// training photos when there are none), plus what was written and how the fit went.
  struct Train: Encodable {
    let classes: [String]
    let trainingAccuracy: Double
    let validationAccuracy: Double?
    let perClass: [String: LabelFigures]
    let confusion: [[Int]]
    let model: String
    let sidecar: String
    let trainingPhotos: Int
    let validationPhotos: Int
    let samples: Int
    let iterations: Int
    let converged: Bool
    let unknownThreshold: Float?
    let skipped: [Skipped]

    enum CodingKeys: String, CodingKey {
      case classes, confusion, model, sidecar, samples, iterations, converged, skipped
      case trainingAccuracy = "training_accuracy"
      case validationAccuracy = "validation_accuracy"
      case perClass = "per_class"
      case trainingPhotos = "training_photos"
      case validationPhotos = "validation_photos"
      case unknownThreshold = "unknown_threshold"
    }

    init(_ trained: TrainedClassifier, model: String, sidecar: String, skipped: [SkippedPhoto]) {
      let shown = trained.validation ?? trained.training
      classes = trained.description.labels
      trainingAccuracy = trained.training.accuracy
      validationAccuracy = trained.validation?.accuracy
      perClass = JSONShapes.figures(shown)
      confusion = shown.confusion.map { Array($0.prefix(shown.labels.count)) }
      self.model = model
      self.sidecar = sidecar
      trainingPhotos = trained.training.count
      validationPhotos = trained.validation?.count ?? 0
      samples = trained.sampleCount
      iterations = trained.fit.iterations
      converged = trained.fit.converged
      unknownThreshold = trained.description.unknownThreshold
      self.skipped = skipped.map(Skipped.init)
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(classes, forKey: .classes)
      try container.encode(trainingAccuracy, forKey: .trainingAccuracy)
      // `null`, not absent, when there were no validation photos.
      try container.encode(validationAccuracy, forKey: .validationAccuracy)
      try container.encode(perClass, forKey: .perClass)
      try container.encode(confusion, forKey: .confusion)
      try container.encode(model, forKey: .model)
      try container.encode(sidecar, forKey: .sidecar)
      try container.encode(trainingPhotos, forKey: .trainingPhotos)
      try container.encode(validationPhotos, forKey: .validationPhotos)
      try container.encode(samples, forKey: .samples)
      try container.encode(iterations, forKey: .iterations)
      try container.encode(converged, forKey: .converged)
      try container.encode(unknownThreshold, forKey: .unknownThreshold)
      try container.encode(skipped, forKey: .skipped)
    }
  }

  /// Each label's precision, recall and count.
  static func figures(_ metrics: ClassificationMetrics) -> [String: LabelFigures] {
    var figures: [String: LabelFigures] = [:]
    for (label, values) in zip(metrics.labels, metrics.perLabel) {
      figures[label] = LabelFigures(
        precision: values.precision, recall: values.recall, count: values.count)
    }
    return figures
  }
}
