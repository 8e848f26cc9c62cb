public import ClassifierKit

/// How long each stage of one product search took, measured with a monotonic clock.
public struct SearchTimings: Sendable, Hashable {
  /// Decoding, preprocessing and inference, as the model reported them.
  public var classification: ClassificationTimings
  /// Mapping labels to categories and fetching the products, every request included.
  public var catalog: Duration

  /// Creates timings.
  ///
  /// - Parameters:
  ///   - classification: The classification's stages.
  ///   - catalog: The catalog stage.
  public init(classification: ClassificationTimings, catalog: Duration) {
    self.classification = classification
    self.catalog = catalog
  }

  /// The sum of the stages.
  public var total: Duration { classification.total + catalog }
}
