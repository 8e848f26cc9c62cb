import Foundation

/// The confusion matrix as an SVG heat map.
///
/// One row per true class, one column per predicted class, each cell shaded by its share of the
/// row (so a class's recall is its diagonal cell), with the count and share in each non-empty
/// cell's tooltip. Readable at 81 classes: 12-pixel cells, labels beside and above, and the
/// empty cells left out of the document.
struct ConfusionHeatMap {
  let metrics: ClassificationMetrics

  private static let cell = 12
  private static let labelWidth = 190

  var svg: String {
    let labels = metrics.labels
    let count = labels.count
    let cell = Self.cell
    let margin = Self.labelWidth
    let side = count * cell
    var parts: [String] = []
    parts.append(
      "<rect x=\"\(margin)\" y=\"\(margin)\" width=\"\(side)\" height=\"\(side)\" fill=\"#f6f7fa\" stroke=\"#d9dee7\"/>"
    )
    for (row, label) in labels.enumerated() {
      let y = margin + row * cell + cell - 3
      parts.append(
        "<text x=\"\(margin - 4)\" y=\"\(y)\" text-anchor=\"end\">\(ReportHTML.escaped(label))</text>"
      )
      let x = margin + row * cell + cell - 3
      parts.append(
        "<text transform=\"translate(\(x) \(margin - 4)) rotate(-60)\">\(ReportHTML.escaped(label))</text>"
      )
    }
    for (row, counts) in metrics.confusion.enumerated() {
      let total = counts.reduce(0, +)
      for (column, value) in counts.prefix(count).enumerated() where value > 0 {
        let share = Double(value) / Double(max(total, 1))
        let fill = row == column ? Self.blue(share) : Self.red(share)
        let title =
          "\(labels[row]) taken for \(labels[column]): \(value) of \(total) (\(String(format: "%.0f", share * 100)) %)"
        parts.append(
          "<rect x=\"\(margin + column * cell)\" y=\"\(margin + row * cell)\" width=\"\(cell)\" height=\"\(cell)\" fill=\"\(fill)\"><title>\(ReportHTML.escaped(title))</title></rect>"
        )
      }
    }
    let size = margin + side + 8
    return """
      <section aria-labelledby="confusion-heading"><h2 id="confusion-heading">Confusion matrix</h2>
      <p class="hint">Rows: the true class; columns: the predicted one. Each cell is shaded by its share of the row (blue on the diagonal, red off it); hover a cell for its count.</p>
      <div class="heatmap"><svg role="img" aria-label="Confusion matrix of \(count) classes" width="\(size)" height="\(size)" viewBox="0 0 \(size) \(size)" font-family="system-ui, sans-serif" font-size="9" fill="#1d2330">
      \(parts.joined(separator: "\n"))
      </svg></div></section>

      """
  }

  /// White to blue by `share`.
  private static func blue(_ share: Double) -> String { color(share, to: (36, 86, 201)) }
  /// White to red by `share`.
  private static func red(_ share: Double) -> String { color(share, to: (200, 40, 40)) }

  private static func color(_ share: Double, to target: (Int, Int, Int)) -> String {
    let amount = 0.15 + 0.85 * min(max(share, 0), 1)
    func mix(_ end: Int) -> Int { Int((255 - Double(255 - end) * amount).rounded()) }
    return String(format: "#%02x%02x%02x", mix(target.0), mix(target.1), mix(target.2))
  }
}
