import Foundation

/// `evaluate --report FILE.html`: one self-contained HTML file (no external URL) with the
/// accuracy, a sortable table of each class's precision, recall and count, the confusion matrix
/// as an SVG heat map, the misclassified photos as thumbnails with their true and predicted
/// labels, and the timings.
package struct EvaluationReportPage: Sendable {
  /// A photo the model got wrong.
  package struct Mistake: Sendable {
    /// How the report names the photo (its path).
    package var name: String
    /// Its true label.
    package var truth: String
    /// The model's label, or `nil` when it gave none (below its unknown threshold).
    package var predicted: String?
    /// The model's confidence in its label.
    package var confidence: Float
    /// A small JPEG of the upright photo, or `nil` when it could not be made.
    package var thumbnail: [UInt8]?

    /// A mistake.
    package init(
      name: String, truth: String, predicted: String?, confidence: Float, thumbnail: [UInt8]?
    ) {
      self.name = name
      self.truth = truth
      self.predicted = predicted
      self.confidence = confidence
      self.thumbnail = thumbnail
    }
  }

  /// The title: what was evaluated on what.
  package var title: String
  /// The figures.
  package var metrics: ClassificationMetrics
  /// The photos the model got wrong.
  package var mistakes: [Mistake]
  /// Named durations (`total`, `per photo`), shown as given.
  package var timings: [(name: String, value: String)]

  /// A report.
  package init(
    title: String, metrics: ClassificationMetrics, mistakes: [Mistake],
    timings: [(name: String, value: String)]
  ) {
    self.title = title
    self.metrics = metrics
    self.mistakes = mistakes
    self.timings = timings
  }

  /// The thumbnail of a photo: upright, center-cropped to a square of `side` pixels, as JPEG.
  package static func thumbnail(of source: ImageSource, side: Int = 128) -> [UInt8]? {
    let spec = ModelInputSpec(width: side, height: side, cropAndScale: .centerCrop)
    guard let image = try? source.decoded(using: ImageDecoder()),
      let picture = try? spec.picture(from: image)
    else { return nil }
    return try? JPEGEncoder(quality: 80).encode(picture.image)
  }

  /// The HTML document.
  package var html: String {
    ReportHTML.document(
      title: title,
      body: summary + classTable + ConfusionHeatMap(metrics: metrics).svg + mistakeGallery,
      script: ReportHTML.sortScript)
  }

  private var summary: String {
    let unlabeled = metrics.confusion.reduce(0) { $0 + ($1.last ?? 0) }
    var rows = [
      ("accuracy", String(format: "%.1f %%", metrics.accuracy * 100)),
      ("photos", String(metrics.count)),
      ("classes", String(metrics.labels.count)),
      ("misclassified", String(mistakes.count)),
    ]
    if unlabeled > 0 {
      rows.append(("given a label outside these classes, or none", String(unlabeled)))
    }
    rows += timings.map { ($0.name, $0.value) }
    let cells = rows.map {
      "<div class=\"figure\"><span>\(ReportHTML.escaped($0.0))</span><strong>\(ReportHTML.escaped($0.1))</strong></div>"
    }
    return "<section aria-label=\"Summary\" class=\"figures\">\(cells.joined())</section>\n"
  }

  private var classTable: String {
    var rows = ""
    for (label, figures) in zip(metrics.labels, metrics.perLabel) {
      rows += "<tr><th scope=\"row\">\(ReportHTML.escaped(label))</th>"
      rows +=
        "<td data-value=\"\(figures.precision)\">\(String(format: "%.3f", figures.precision))</td>"
      rows += "<td data-value=\"\(figures.recall)\">\(String(format: "%.3f", figures.recall))</td>"
      rows += "<td data-value=\"\(figures.count)\">\(figures.count)</td></tr>\n"
    }
    let heads = ["class", "precision", "recall", "photos"].enumerated().map { index, name in
      "<th scope=\"col\"><button type=\"button\" data-column=\"\(index)\">\(name)</button></th>"
    }
    return """
      <section aria-labelledby="classes-heading"><h2 id="classes-heading">Per class</h2>
      <p class="hint">Select a column's name to sort by it; again to reverse.</p>
      <table id="classes"><thead><tr>\(heads.joined())</tr></thead><tbody>
      \(rows)</tbody></table></section>

      """
  }

  private var mistakeGallery: String {
    let items = mistakes.map { mistake -> String in
      let predicted = mistake.predicted ?? "no label"
      let caption =
        "\(ReportHTML.escaped(mistake.truth)) → \(ReportHTML.escaped(predicted)) "
        + String(format: "(%.0f %%)", mistake.confidence * 100)
      let alt = ReportHTML.escaped(
        "\(mistake.name): a \(mistake.truth), taken for \(predicted)")
      let picture =
        mistake.thumbnail.map {
          "<img src=\"data:image/jpeg;base64,\(Data($0).base64EncodedString())\" alt=\"\(alt)\" width=\"128\" height=\"128\">"
        } ?? "<div class=\"missing\" role=\"img\" aria-label=\"\(alt)\">no preview</div>"
      return
        "<figure>\(picture)<figcaption>\(caption)<br><small>\(ReportHTML.escaped(mistake.name))</small></figcaption></figure>"
    }
    return """
      <section aria-labelledby="mistakes-heading"><h2 id="mistakes-heading">Misclassified photos (\(mistakes.count))</h2>
      <div class="gallery">\(items.joined(separator: "\n"))</div></section>

      """
  }
}
