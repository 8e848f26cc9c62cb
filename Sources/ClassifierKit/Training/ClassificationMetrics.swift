/// How well a classifier labels a set of photos: accuracy, each label's precision and recall,
/// and the confusion matrix, as Create ML reports them.
public struct ClassificationMetrics: Sendable, Hashable {
  /// One label's figures.
  public struct LabelMetrics: Sendable, Hashable {
    /// Of the photos given this label, the share that show it; 0 when none was given it.
    public var precision: Double
    /// Of the photos that show this label, the share given it; 0 when none shows it.
    public var recall: Double
    /// The photos that show this label.
    public var count: Int
  }

  /// The labels, in class-index order.
  public let labels: [String]
  /// The share of photos given their true label.
  public let accuracy: Double
  /// The number of photos.
  public let count: Int
  /// Each label's precision, recall and count, in ``labels`` order.
  public let perLabel: [LabelMetrics]
  /// `confusion[truth][predicted]` photo counts; the extra last column counts photos given no
  /// label (below the model's unknown threshold).
  public let confusion: [[Int]]

  /// Computes the metrics of predictions.
  ///
  /// - Parameters:
  ///   - labels: The labels.
  ///   - truth: Each photo's true class index.
  ///   - predicted: Each photo's predicted class index, `nil` for no label.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when the counts differ or an
  ///   index is out of range.
  public init(labels: [String], truth: [Int], predicted: [Int?]) throws(ClassificationError) {
    let classes = labels.count
    guard truth.count == predicted.count,
      truth.allSatisfy({ (0..<classes).contains($0) }),
      predicted.allSatisfy({ $0.map { (0..<classes).contains($0) } ?? true })
    else {
      throw ClassificationError(
        .invalidArgument,
        "\(truth.count) true and \(predicted.count) predicted labels, not all in 0..<\(classes)")
    }
    var confusion = Array(repeating: Array(repeating: 0, count: classes + 1), count: classes)
    for (actual, guess) in zip(truth, predicted) {
      confusion[actual][guess ?? classes] += 1
    }
    let correct = (0..<classes).reduce(0) { $0 + confusion[$1][$1] }
    self.labels = labels
    self.confusion = confusion
    count = truth.count
    accuracy = truth.isEmpty ? 0 : Double(correct) / Double(truth.count)
    perLabel = (0..<classes).map { label in
      let shows = confusion[label].reduce(0, +)
      let given = (0..<classes).reduce(0) { $0 + confusion[$1][label] }
      let hits = Double(confusion[label][label])
      return LabelMetrics(
        precision: given == 0 ? 0 : hits / Double(given),
        recall: shows == 0 ? 0 : hits / Double(shows), count: shows)
    }
  }
}
