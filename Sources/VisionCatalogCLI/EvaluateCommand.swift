import Foundation
import VisionCatalog

/// `vision-catalog evaluate [--model M] DATA_DIR [--threads N] [--exact] [--json]`, and the
/// positional `evaluate MODEL DATA_DIR` of earlier releases.
struct EvaluateCommand: Subcommand {
  let name = "evaluate"
  let summary = "Measure a classifier on labeled photo folders: accuracy, precision, recall."
  let synopsis = "[--model M] DATA_DIR"
  let discussion = """
    Classifies every photo in DATA_DIR's label subfolders with the model given by --model (as
    classify takes it; default when absent) and prints the accuracy of the top label, each
    label's precision, recall and photo count, and the confusion matrix (rows: the true label,
    columns: the predicted one). Folder names must be labels of the model; a photo given a label
    outside them, or none (below a trained model's unknown threshold), counts as wrong. Symbolic
    links to label folders and photos are followed. Photos that cannot be read or decoded (a
    broken link included) are listed and left out. With --json it prints {"accuracy",
    "classes", "per_class", "confusion", ...}. The form "evaluate MODEL DATA_DIR" of earlier
    releases is still accepted, with a note on standard error, for this release.
    """
  /// `--report FILE.html`: a self-contained HTML report.
  static let report = Option.text(
    "report", "FILE.html",
    help: "also write one self-contained HTML file: accuracy, a sortable per-class table, the "
      + "confusion matrix as a heat map, the misclassified photos as thumbnails, timings")

  let options = [
    ModelOptions.model, ModelOptions.threads, ModelOptions.exact, Self.report, JSONOutput.option,
  ]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let (modelName, folder) = try Self.modelAndFolder(parsed)
    let photos = try TrainingOptions.photos(in: folder)
    let model = try Self.load(modelName, threads: parsed.integer(ModelOptions.threads))
    let classes = Array(Set(photos.map(\.label))).sorted()
    if let stranger = classes.first(where: { !model.labels.contains($0) }) {
      throw CLIError.failure(
        "folder '\(stranger)' is not a label of the model (its labels: "
          + model.labels.prefix(20).joined(separator: ", ")
          + (model.labels.count > 20 ? ", ..." : "") + ")")
    }
    let clock = ContinuousClock()
    let started = clock.now
    let (metrics, skipped, outcomes) = try await Self.evaluate(
      model, photos, classes: classes, preparation: ModelOptions.preparation(from: parsed))
    if let path = parsed.value(Self.report) {
      try Self.writeReport(
        to: path, title: "\(modelName) on \(folder)", photos: photos, metrics: metrics,
        outcomes: outcomes, elapsed: clock.now - started)
    }
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

  /// The model's name (`--model`, else `default`) and DATA_DIR; `evaluate MODEL DATA_DIR`, the
  /// positional form of earlier releases, gives both with a note that it is going away.
  private static func modelAndFolder(
    _ parsed: CommandLineArguments
  ) throws(CLIError) -> (model: String, folder: String) {
    switch (parsed.value(ModelOptions.model), parsed.positionals.count) {
    case (let model?, 1): return (model, parsed.positionals[0])
    case (nil, 1): return ("default", parsed.positionals[0])
    case (nil, 2):
      StandardError.write(
        "note: 'evaluate MODEL DATA_DIR' is deprecated; use 'evaluate --model MODEL DATA_DIR'\n")
      return (parsed.positionals[0], parsed.positionals[1])
    default:
      throw CLIError.usage("expected DATA_DIR (and the model as --model M)")
    }
  }

  /// Loads the model named by `--model`, printing progress on standard error.
  private static func load(_ name: String, threads: Int?) throws(CLIError) -> NetworkClassifier {
    StandardError.write("loading model \(name)...\n")
    do {
      return try ModelOptions.load(model: name, threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Classifies every photo and compares its top label with its folder's.
  ///
  /// The photos that fail are returned apart, and each classified photo's top label by index.
  static func evaluate(
    _ model: NetworkClassifier, _ photos: [TrainingPhoto], classes: [String],
    preparation: PreparationOptions
  ) async throws(CLIError) -> (ClassificationMetrics, [SkippedPhoto], [Int: Classification?]) {
    var progress = BatchProgress("evaluate", total: photos.count)
    var truth: [Int] = []
    var predicted: [Int?] = []
    var skipped: [SkippedPhoto] = []
    var outcomes: [Int: Classification?] = [:]
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
        outcomes[index] = report.classifications.first
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
        try ClassificationMetrics(labels: classes, truth: truth, predicted: predicted), skipped,
        outcomes
      )
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Writes `--report`'s HTML file.
  static func writeReport(
    to path: String, title: String, photos: [TrainingPhoto], metrics: ClassificationMetrics,
    outcomes: [Int: Classification?], elapsed: Duration
  ) throws(CLIError) {
    let page = EvaluationReportPage(
      title: title, metrics: metrics, mistakes: mistakes(photos, outcomes),
      timings: timings(elapsed, photos: metrics.count))
    try ImageFiles.write(Array(page.html.utf8), to: path)
    StandardError.write("report: \(path)\n")
  }

  /// The photos whose top label is not their folder's, in folder order, with thumbnails.
  private static func mistakes(_ photos: [TrainingPhoto], _ outcomes: [Int: Classification?])
    -> [EvaluationReportPage.Mistake]
  {
    outcomes.keys.sorted().compactMap { index in
      let photo = photos[index]
      let top = outcomes[index] ?? nil
      guard top?.label != photo.label else { return nil }
      return EvaluationReportPage.Mistake(
        name: photo.source.name, truth: photo.label, predicted: top?.label,
        confidence: top?.confidence ?? 0,
        thumbnail: EvaluationReportPage.thumbnail(of: photo.source))
    }
  }

  private static func timings(_ elapsed: Duration, photos: Int) -> [(name: String, value: String)] {
    let total = JSONShapes.milliseconds(elapsed) / 1_000
    return [
      ("time", String(format: "%.1f s", total)),
      ("per photo", String(format: "%.1f ms", total * 1000 / Double(max(photos, 1)))),
      ("photos per second", String(format: "%.1f", Double(photos) / max(total, 1e-9))),
    ]
  }
}
