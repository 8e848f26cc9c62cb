import Foundation
import VisionCatalog

/// `vision-catalog classify IMAGE [--model default|FILE] [--top K] [--exact] [--json]`.
struct ClassifyCommand: Subcommand {
  let name = "classify"
  let summary = "Classify a photo: the top labels with their confidences."
  let help = """
    USAGE: vision-catalog classify IMAGE [--model default|FILE] [--top K] [--exact] [--json]

    Decodes IMAGE, applies its EXIF orientation, prepares it as the model expects and prints
    the K best labels with softmax confidences.

    OPTIONS:
    \(ModelOptions.help)
      --top K               how many labels to print (default 5)
      --json                print one JSON object instead of a table
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments, options: ModelOptions.valued.union(["top"]),
      flags: ModelOptions.flags.union(["json"]))
    let path = try parsed.singlePositional(named: "IMAGE")
    let top = try parsed.integer("top", in: 1...1_000) ?? 5
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
    }
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
