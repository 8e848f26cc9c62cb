/// What a classification returns: how many labels, above which confidence.
///
/// Confidences are softmax probabilities over all classes, like a Vision classification
/// request; `NetworkClassifier.logits(for:)` gives a network's raw outputs.
public struct ClassificationOptions: Sendable, Hashable {
  /// How a model's outputs become ``Classification/confidence`` values.
  package enum Scoring: Sendable, Hashable {
    /// Softmax over all classes: probabilities that sum to 1 (the default, like Core ML).
    case softmax
    /// The network's raw outputs (logits), unchanged.
    case raw
  }

  /// The most classifications to return, best first; at least 1.
  public var maximumCount: Int
  /// Classifications below this confidence are left out (compared after scoring).
  public var minimumConfidence: Float
  /// How outputs become confidences.
  package var scoring: Scoring

  /// Creates options.
  ///
  /// - Parameters:
  ///   - maximumCount: The most classifications to return; values below 1 count as 1.
  ///   - minimumConfidence: The lowest confidence kept; `-infinity` keeps everything.
  public init(maximumCount: Int = 5, minimumConfidence: Float = -.infinity) {
    self.init(maximumCount: maximumCount, minimumConfidence: minimumConfidence, scoring: .softmax)
  }

  /// Creates options with a scoring.
  package init(maximumCount: Int = 5, minimumConfidence: Float = -.infinity, scoring: Scoring) {
    self.maximumCount = max(1, maximumCount)
    self.minimumConfidence = minimumConfidence
    self.scoring = scoring
  }

  /// The five best labels as softmax probabilities, like a Vision classification request.
  public static let `default` = ClassificationOptions()
}
