import ClassifierKit
import Foundation
import ImagePipeline

/// Measures what DCT-domain JPEG scaling costs in accuracy: each photo is classified with the
/// default model twice, decoded exactly and decoded at the automatic reduction, and the raw
/// logits are compared (top-1 agreement, top-5 overlap, mean and max absolute difference).
///
/// Run by `Scripts/measure-dct-accuracy.sh`; prints one tab-separated row per photo and a summary
/// over the photos that were actually decoded reduced.
enum DCTAccuracy {
  static func run(paths: [String]) throws {
    let model = try NetworkClassifier.efficientNetLite0()
    let exact = PreparationOptions(jpegScaling: .exact)
    let fast = PreparationOptions(jpegScaling: .automatic)
    let options = ClassificationOptions(maximumCount: 1_000, scoring: .raw)
    print(
      "photo\tstored\tscale\ttop1_exact\ttop1_fast\ttop5_overlap\tmean_abs\tmax_abs\tms_exact\tms_fast"
    )
    var rows: [(agree: Bool, overlap: Int, mean: Double, max: Double)] = []
    for path in paths {
      let url = URL(fileURLWithPath: path)
      let reference: ClassificationReport
      let reduced: ClassificationReport
      do {
        reference = try model.classify(.file(url), preparation: exact, options: options)
        reduced = try model.classify(.file(url), preparation: fast, options: options)
      } catch {
        print("# \(url.lastPathComponent) skipped: \(error.message)")
        continue
      }
      let left = logits(reference)
      let right = logits(reduced)
      let differences = zip(left, right).map { Double(abs($0 - $1)) }
      let mean = differences.reduce(0, +) / Double(differences.count)
      let worst = differences.max() ?? .nan
      let top5Exact = Set(reference.classifications.prefix(5).map(\.index))
      let top5Fast = Set(reduced.classifications.prefix(5).map(\.index))
      let overlap = top5Exact.intersection(top5Fast).count
      let top1Exact = reference.classifications.first?.index ?? -1
      let top1Fast = reduced.classifications.first?.index ?? -1
      let scale = reduced.preprocessing.jpegScale.denominator
      func front(_ report: ClassificationReport) -> String {
        let (seconds, attoseconds) = (report.timings.decode + report.timings.preprocess).components
        return String(format: "%.1f", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
      }
      print(
        "\(url.lastPathComponent)\t\(reduced.preprocessing.sourceWidth)x"
          + "\(reduced.preprocessing.sourceHeight)\t1/\(scale)\t\(top1Exact)\t\(top1Fast)\t"
          + "\(overlap)/5\t\(String(format: "%.4f", mean))\t\(String(format: "%.4f", worst))\t"
          + "\(front(reference))\t\(front(reduced))")
      if scale > 1 {
        rows.append((top1Exact == top1Fast, overlap, mean, worst))
      }
    }
    guard !rows.isEmpty else {
      print("summary: no photo was decoded reduced")
      return
    }
    let agreeing = rows.filter(\.agree).count
    let overlap = Double(rows.map(\.overlap).reduce(0, +)) / Double(rows.count)
    let mean = rows.map(\.mean).reduce(0, +) / Double(rows.count)
    let worst = rows.map(\.max).max() ?? .nan
    print(
      "summary over \(rows.count) reduced photos: top-1 agreement \(agreeing)/\(rows.count), "
        + "mean top-5 overlap \(String(format: "%.2f", overlap))/5, mean |logit difference| "
        + "\(String(format: "%.4f", mean)), max |logit difference| \(String(format: "%.4f", worst))"
    )
  }

  /// The raw score of every class, in class order.
  private static func logits(_ report: ClassificationReport) -> [Float] {
    var scores = [Float](repeating: .nan, count: report.classifications.count)
    for classification in report.classifications where classification.index < scores.count {
      scores[classification.index] = classification.confidence
    }
    return scores
  }
}
