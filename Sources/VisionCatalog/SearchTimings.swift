package import ClassifierKit

/// How long each stage of one product search took, measured with a monotonic clock.
package struct SearchTimings: Sendable, Hashable {
  /// Decoding, preprocessing and inference, as the model reported them.
  package var classification: ClassificationTimings
  /// Mapping labels to categories and fetching the products, every request included.
  package var catalog: Duration
  /// Reading the photo's barcodes, beside the classification; zero when the finder reads none.
  package var barcodes: Duration = .zero
  /// Embedding the photo and searching the visual-search index, beside the classification;
  /// zero without an index.
  package var similarity: Duration = .zero

  /// Creates timings.
  ///
  /// - Parameters:
  ///   - classification: The classification's stages.
  ///   - catalog: The catalog stage.
  package init(classification: ClassificationTimings, catalog: Duration) {
    self.classification = classification
    self.catalog = catalog
  }

  /// The time of the stages, the barcodes and the similarity counted beside the classification
  /// they overlap.
  package var total: Duration { max(classification.total, barcodes, similarity) + catalog }
}
