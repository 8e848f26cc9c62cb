/// One label a model assigns to an image, with its confidence.
public struct Classification: Sendable, Hashable, Codable {
  /// The label, as the model's label list spells it (for ImageNet: `"tabby, tabby cat"`).
  public let label: String
  /// The class index: the label's position in the model's label list.
  public let index: Int
  /// The confidence: a softmax probability in 0...1 by default, or the raw score when requested.
  public let confidence: Float

  /// Creates a classification.
  ///
  /// - Parameters:
  ///   - label: The label.
  ///   - index: The class index.
  ///   - confidence: The confidence or raw score.
  public init(label: String, index: Int, confidence: Float) {
    self.label = label
    self.index = index
    self.confidence = confidence
  }
}
