import NeuralCore

/// A photo's feature print: a vector that places photos of the same thing close together, as
/// Vision's `VNFeaturePrintObservation` does.
///
/// ``FeaturePrinter`` makes them. The values are L2-normalized, so the dot product of two prints
/// is their cosine similarity.
public struct ImageFeaturePrint: Sendable, Hashable {
  /// The normalized values.
  public let values: [Float]

  /// Makes a print from a vector, normalizing it.
  ///
  /// - Parameter values: Finite values, not all zero.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` for an empty, all-zero or
  ///   non-finite vector.
  public init(values: [Float]) throws(ClassificationError) {
    guard let normalized = VectorSimilarity.normalized(values) else {
      throw ClassificationError(
        .invalidArgument, "a feature print needs finite values, not all zero")
    }
    self.values = normalized
  }

  /// The cosine similarity with another print: 1 for the same direction, lower is farther.
  ///
  /// - Parameter other: A print of the same length.
  /// - Returns: The similarity, or `nil` when the lengths differ.
  public func similarity(to other: ImageFeaturePrint) -> Float? {
    guard values.count == other.values.count else { return nil }
    var sum: Double = 0
    for (a, b) in zip(values, other.values) {
      sum += Double(a) * Double(b)
    }
    return Float(sum)
  }

  /// The Euclidean distance to another print, as Vision's `computeDistance` gives it: 0 for the
  /// same direction, 2 at most.
  ///
  /// - Parameter other: A print of the same length.
  /// - Returns: The distance, or `nil` when the lengths differ.
  public func distance(to other: ImageFeaturePrint) -> Float? {
    similarity(to: other).map { (2 - 2 * min(1, $0)).squareRoot() }
  }
}
