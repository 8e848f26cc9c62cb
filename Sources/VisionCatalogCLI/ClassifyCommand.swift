import Foundation
import VisionCatalog

/// `vision-catalog classify IMAGE... | DIR... [--shard i/n] [model options] [--json]`.
struct ClassifyCommand: Subcommand {
  /// `--shard i/n`: one part of a batch, for several processes sharing it.
  static let shard = Option.text(
    "shard", "i/n",
    help: "only the i-th of n contiguous parts of the photos (1 <= i <= n)")

  let name = "classify"
  let summary = "Classify a photo: the top labels with their confidences."
  let synopsis = "IMAGE... | DIR..."
  let discussion = """
    Decodes IMAGE, applies its EXIF orientation, prepares it as the model expects and prints
    the K best labels with softmax confidences.

    With several photos, a folder (its photos by extension, subfolders included, symbolic links
    followed, hidden entries skipped, in path order) or --shard, prints JSON Lines: one object
    per photo, the --json shape plus "file"; a photo that fails, a broken link included, is a
    line with "file" and "error", and the batch goes on (exit code 1 at the end if any
    failed). A folder without photos is an error. Progress goes to standard error.
    """
  let options = ModelOptions.all + [JSONOutput.option, Self.shard]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let top = parsed.integer(ModelOptions.top) ?? 5
    let shard = try parsed.value(Self.shard).map { (text) throws(CLIError) in
      try Shard(parsing: text)
    }
    guard let path = parsed.positionals.first else { throw CLIError.usage("missing IMAGE") }
    if parsed.positionals.count > 1 || shard != nil || PhotoBatch.isFolder(path) {
      let batch = try PhotoBatch(arguments: parsed.positionals)
      let paths = shard.map { Array($0.part(of: batch.paths)) } ?? batch.paths
      try await classifyBatch(paths, parsed, top: top)
      return
    }
    let photo = try ImageFiles.load(path)
    let model = try ModelOptions.load(from: parsed)
    let report: ClassificationReport
    do {
      report = try await model.classify(
        photo, preparation: ModelOptions.preparation(from: parsed),
        options: ClassificationOptions(maximumCount: top))
    } catch {
      throw CLIError.failure(error.underlying.map { "\(path): \($0)" } ?? error.message)
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.Classify(report))
    } else {
      Self.printTable(report, threshold: model.model.unknownThreshold)
    }
  }

  /// Prints the classifications as a table, or why there are none.
  private static func printTable(_ report: ClassificationReport, threshold: Float?) {
    for classification in report.classifications {
      print(ClassificationLine(classification).text)
    }
    if report.classifications.isEmpty, let threshold {
      print("no label: every confidence is below the model's unknown threshold \(threshold)")
    }
  }
}

extension ClassifyCommand {
  /// Classifies `paths` with one model through an ``OrderedPipeline``, printing a JSON line per
  /// photo in the order given.
  func classifyBatch(_ paths: [String], _ parsed: CommandLineArguments, top: Int)
    async throws(CLIError)
  {
    let model = try ModelOptions.load(from: parsed)
    let preparation = ModelOptions.preparation(from: parsed)
    let options = ClassificationOptions(maximumCount: top)
    try await OrderedPipeline.printLines(
      paths, command: "classify", window: OrderedPipeline.window(for: model),
      failure: "classified"
    ) { await Self.classify($0, model, preparation, options) }
  }

  /// One photo's JSON line: its classification, or the reason it has none.
  private static func classify(
    _ path: String, _ model: NetworkClassifier, _ preparation: PreparationOptions,
    _ options: ClassificationOptions
  ) async -> JSONShapes.BatchLine<JSONShapes.Classify> {
    var line = JSONShapes.BatchLine<JSONShapes.Classify>(file: path)
    do {
      let report = try await model.classify(
        .file(URL(fileURLWithPath: path)), preparation: preparation, options: options)
      line.result = JSONShapes.Classify(report)
    } catch {
      line.error = error.underlying.map { "\($0)" } ?? error.message
    }
    return line
  }
}

/// One classification as a table row: confidence as a percentage, index and label.
struct ClassificationLine {
  /// The classification shown.
  let classification: Classification

  /// The row of `classification`.
  init(_ classification: Classification) {
    self.classification = classification
  }

  /// The row, such as ` 42.10%   967  espresso`.
  var text: String {
    let percent = String(format: "%6.2f%%", Double(classification.confidence) * 100)
    let index = String(classification.index)
    return "\(percent)  \(String(repeating: " ", count: max(0, 4 - index.count)))\(index)  "
      + classification.label
  }
}
