package import ClassifierKit

/// How long each stage of one product search took, measured with a monotonic clock.
package struct SearchTimings: Sendable, Hashable {
  /// Decoding, preprocessing and inference, as the model reported them.
  package var classification: ClassificationTimings
  /// Mapping labels to categories and fetching the products, every request included.
  package var catalog: Duration
  /// Reading the photo's barcodes, zero when the finder reads none.
  package var barcodes: Duration = .zero

  /// Creates timings.
  ///
  /// - Parameters:
  ///   - classification: The classification's stages.
  ///   - catalog: The catalog stage.
  package init(classification: ClassificationTimings, catalog: Duration) {
    self.classification = classification
    self.catalog = catalog
  }

  /// The sum of the stages.
  package var total: Duration { classification.total + catalog + barcodes }
}
