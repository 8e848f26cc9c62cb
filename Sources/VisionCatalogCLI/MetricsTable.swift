import Foundation
import VisionCatalog

/// Metrics as text: each label's precision, recall and count, then the confusion matrix.
struct MetricsTable {
  let metrics: ClassificationMetrics

  init(_ metrics: ClassificationMetrics) {
    self.metrics = metrics
  }

  var text: String {
    let width = max(5, metrics.labels.map(\.count).max() ?? 0)
    var lines = [pad("label", width) + "  precision  recall  count"]
    for (label, figures) in zip(metrics.labels, metrics.perLabel) {
      lines.append(
        pad(label, width)
          + String(
            format: "  %8.1f%%  %5.1f%%  %5d", figures.precision * 100, figures.recall * 100,
            figures.count))
    }
    lines.append("")
    lines.append("confusion (rows: true label, columns: predicted, in the order above)")
    for (label, row) in zip(metrics.labels, metrics.confusion) {
      lines.append(
        pad(label, width) + "  "
          + row.prefix(metrics.labels.count).map { String(format: "%4d", $0) }.joined(
            separator: " "))
    }
    return lines.joined(separator: "\n")
  }

  private func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
}
