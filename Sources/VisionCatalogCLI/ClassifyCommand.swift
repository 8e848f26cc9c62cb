import Foundation
import VisionCatalog

/// `vision-catalog classify IMAGE [--model default|FILE] [--top K] [--exact] [--json]`.
struct ClassifyCommand: Subcommand {
  let name = "classify"
  let summary = "Classify a photo: the top labels with their confidences."
  let help = """
    USAGE: vision-catalog classify IMAGE [--model default|FILE] [--top K] [--exact] [--json]
           vision-catalog classify IMAGE... | DIR... [--shard i/n] [--model ...] [--top K]

    Decodes IMAGE, applies its EXIF orientation, prepares it as the model expects and prints
    the K best labels with softmax confidences.

    With several photos, a folder (its photos by extension, subfolders included, symbolic links
    followed, hidden entries skipped, in path order) or --shard, prints JSON Lines: one object
    per photo, the --json shape plus "file"; a photo that fails, a broken link included, is a
    line with "file" and "error", and the batch goes on (exit code 1 at the end if any
    failed). A folder without photos is an error. Progress goes to standard error.

    OPTIONS:
    \(ModelOptions.help)
      --top K               how many labels to print (default 5)
      --json                print one JSON object instead of a table
      --shard i/n           only the i-th of n contiguous parts of the photos (1 <= i <= n)
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments, options: ModelOptions.valued.union(["top", "shard"]),
      flags: ModelOptions.flags.union(["json"]))
    let top = try parsed.integer("top", in: 1...1_000) ?? 5
    let shard = try parsed.value("shard").map { (text) throws(CLIError) in try Shard(parsing: text)
    }
    guard !parsed.positionals.isEmpty else { throw CLIError.usage("missing IMAGE") }
    if parsed.positionals.count > 1 || shard != nil || PhotoBatch.isFolder(parsed.positionals[0]) {
      let batch = try PhotoBatch(arguments: parsed.positionals)
      let paths = shard.map { Array($0.part(of: batch.paths)) } ?? batch.paths
      try await classifyBatch(paths, parsed, top: top)
      return
    }
    let path = parsed.positionals[0]
    let photo = try ImageFiles.load(path)
    let model = try ModelOptions.load(from: parsed)
    let preparation = try ModelOptions.preparation(from: parsed)
    let report: ClassificationReport
    do {
      report = try await model.classify(
        photo, preparation: preparation,
        options: ClassificationOptions(maximumCount: top))
    } catch {
      throw CLIError.failure(error.underlying.map { "\(path): \($0)" } ?? error.message)
    }
    if parsed.has("json") {
      try JSONOutput.print(JSONShapes.Classify(report))
    } else {
      for classification in report.classifications {
        print(ClassificationLine(classification).text)
      }
      if report.classifications.isEmpty, let threshold = model.model.unknownThreshold {
        print("no label: every confidence is below the model's unknown threshold \(threshold)")
      }
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
    let preparation = try ModelOptions.preparation(from: parsed)
    let options = ClassificationOptions(maximumCount: top)
    var progress = BatchProgress("classify", total: paths.count)
    var failures = 0
    try await OrderedPipeline.run(count: paths.count, window: OrderedPipeline.window(for: model)) {
      await Self.classify(paths[$0], model, preparation, options)
    } handle: { (_, line) throws(CLIError) in
      if line.error != nil { failures += 1 }
      try JSONOutput.print(line)
      progress.advance(failed: line.error != nil)
    }
    progress.finish()
    if failures > 0 {
      throw CLIError.failure("\(failures) of \(paths.count) photos could not be classified")
    }
  }

  /// One photo's JSON line: its classification, or the reason it has none.
  private static func classify(
    _ path: String, _ model: NetworkClassifier, _ preparation: PreparationOptions,
    _ options: ClassificationOptions
  ) async -> JSONShapes.BatchClassify {
    var line = JSONShapes.BatchClassify(file: path)
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
  let classification: Classification

  init(_ classification: Classification) {
    self.classification = classification
  }

  var text: String {
    let percent = String(format: "%6.2f%%", Double(classification.confidence) * 100)
    let index = String(classification.index)
    return "\(percent)  \(String(repeating: " ", count: max(0, 4 - index.count)))\(index)  "
      + classification.label
  }
}
