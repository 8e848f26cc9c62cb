/// What a classification returns: how many labels, above which confidence, scored how.
public struct ClassificationOptions: Sendable, Hashable {
  /// How a model's outputs become ``Classification/confidence`` values.
  public enum Scoring: Sendable, Hashable {
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
  public var scoring: Scoring

  /// Creates options.
  ///
  /// - Parameters:
  ///   - maximumCount: The most classifications to return; values below 1 count as 1.
  ///   - minimumConfidence: The lowest confidence kept; `-infinity` keeps everything.
  ///   - scoring: Softmax probabilities (default) or raw scores.
  public init(
    maximumCount: Int = 5, minimumConfidence: Float = -.infinity, scoring: Scoring = .softmax
  ) {
    self.maximumCount = max(1, maximumCount)
    self.minimumConfidence = minimumConfidence
    self.scoring = scoring
  }

  /// The five best labels as softmax probabilities, like a Vision classification request.
  public static let `default` = ClassificationOptions()
}
