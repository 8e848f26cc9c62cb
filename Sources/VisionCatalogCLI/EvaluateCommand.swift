import Foundation
import VisionCatalog

/// `vision-catalog evaluate MODEL DATA_DIR [--threads N] [--exact] [--json]`.
struct EvaluateCommand: Subcommand {
  let name = "evaluate"
  let summary = "Measure a classifier on labeled photo folders: accuracy, precision, recall."
  let synopsis = "MODEL DATA_DIR"
  let discussion = """
    Classifies every photo in DATA_DIR's label subfolders with MODEL (default, a trained .onnx
    with its sidecar, an .mlmodel or .mlpackage, or a .pth checkpoint) and prints the accuracy of the top
    label, each label's precision, recall and photo count, and the confusion matrix (rows: the
    true label, columns: the predicted one). Folder names must be labels of the model; a photo
    given a label outside them, or none (below a trained model's unknown threshold), counts as
    wrong. Symbolic links to label folders and photos are followed. Photos that cannot be read
    or decoded (a broken link included) are listed and left out. With --json it prints
    {"accuracy", "classes", "per_class", "confusion", ...}.
    """
  let options = [ModelOptions.threads, ModelOptions.exact, JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    guard parsed.positionals.count == 2 else {
      throw CLIError.usage("expected MODEL and DATA_DIR")
    }
    let photos = try TrainingOptions.photos(in: parsed.positionals[1])
    let model = try Self.load(parsed.positionals[0], threads: parsed.integer(ModelOptions.threads))
    let classes = Array(Set(photos.map(\.label))).sorted()
    if let stranger = classes.first(where: { !model.labels.contains($0) }) {
      throw CLIError.failure(
        "folder '\(stranger)' is not a label of the model (its labels: "
          + model.labels.prefix(20).joined(separator: ", ")
          + (model.labels.count > 20 ? ", ..." : "") + ")")
    }
    let (metrics, skipped) = try await Self.evaluate(
      model, photos, classes: classes, preparation: ModelOptions.preparation(from: parsed))
    for photo in skipped {
      StandardError.write("skipped \(photo.name) (\(photo.label)): \(photo.reason)\n")
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.Evaluate(metrics, skipped: skipped))
    } else {
      print(String(format: "accuracy: %.1f%% of %d photos", metrics.accuracy * 100, metrics.count))
      print("")
      print(MetricsTable(metrics).text)
    }
  }

  /// Loads the model named by the MODEL argument, printing progress on standard error.
  private static func load(_ name: String, threads: Int?) throws(CLIError) -> NetworkClassifier {
    StandardError.write("loading model \(name)...\n")
    do {
      return try ModelOptions.load(model: name, threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Classifies every photo and compares its top label with its folder's.
  private static func evaluate(
    _ model: NetworkClassifier, _ photos: [TrainingPhoto], classes: [String],
    preparation: PreparationOptions
  ) async throws(CLIError) -> (ClassificationMetrics, [SkippedPhoto]) {
    var progress = BatchProgress("evaluate", total: photos.count)
    var truth: [Int] = []
    var predicted: [Int?] = []
    var skipped: [SkippedPhoto] = []
    let options = ClassificationOptions(maximumCount: 1)
    try await OrderedPipeline.run(count: photos.count, window: OrderedPipeline.window(for: model)) {
      (index) -> Result<ClassificationReport, ClassificationError> in
      do throws(ClassificationError) {
        return .success(
          try await model.classify(photos[index].source, preparation: preparation, options: options)
        )
      } catch {
        return .failure(error)
      }
    } handle: { (index, outcome) throws(CLIError) in
      let photo = photos[index]
      switch outcome {
      case .success(let report):
        truth.append(classes.firstIndex(of: photo.label) ?? 0)
        predicted.append(report.classifications.first.flatMap { classes.firstIndex(of: $0.label) })
        progress.advance(failed: false)
      case .failure(let error):
        skipped.append(
          SkippedPhoto(
            name: photo.source.name, label: photo.label,
            reason: error.underlying.map { "\($0)" } ?? error.message))
        progress.advance(failed: true)
      }
    }
    progress.finish()
    guard !truth.isEmpty else {
      throw CLIError.failure("none of the \(photos.count) photos could be classified")
    }
    do {
      return (
        try ClassificationMetrics(labels: classes, truth: truth, predicted: predicted), skipped
      )
    } catch {
      throw CLIError.failure(error.message)
    }
  }
}
