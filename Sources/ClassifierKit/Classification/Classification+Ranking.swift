import Foundation

extension Classification {
  /// Turns one score per class into ranked classifications, as a network's logits are.
  ///
  /// The scores become softmax probabilities (computed stably, in double precision). The
  /// result is sorted by confidence, ties broken by the lower class index, cut to
  /// `options.maximumCount` and to confidences of at least `options.minimumConfidence`.
  ///
  /// - Parameters:
  ///   - scores: One score per class, in class-index order.
  ///   - labels: The labels in class-index order; a class without a label is named by its index.
  ///   - options: How many to keep, the minimum confidence, and the scoring.
  /// - Returns: The best classifications, best first.
  public static func ranked(
    scores: [Float], labels: [String], options: ClassificationOptions
  ) -> [Classification] {
    let confidences = options.scoring == .softmax ? softmax(scores) : scores
    // NaN ranks last; equal confidences keep class-index order.
    let keys = confidences.map { $0.isNaN ? -Float.infinity : $0 }
    let order = keys.indices.sorted { left, right in
      keys[left] != keys[right] ? keys[left] > keys[right] : left < right
    }
    var ranked: [Classification] = []
    for index in order.prefix(options.maximumCount) {
      let confidence = confidences[index]
      guard confidence >= options.minimumConfidence else { break }
      let label = index < labels.count ? labels[index] : "class \(index)"
      ranked.append(Classification(label: label, index: index, confidence: confidence))
    }
    return ranked
  }

  /// A numerically stable softmax: exponentials of the scores minus their maximum, normalized.
  static func softmax(_ scores: [Float]) -> [Float] {
    guard let maximum = scores.filter({ !$0.isNaN }).max(), maximum.isFinite else {
      return scores.map { _ in Float.nan }
    }
    let exponentials = scores.map { exp(Double($0 - maximum)) }
    let sum = exponentials.reduce(0, +)
    return exponentials.map { Float($0 / sum) }
  }
}
