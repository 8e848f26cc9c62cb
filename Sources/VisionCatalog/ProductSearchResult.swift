public import Barcodes
public import CatalogClient
public import ClassifierKit
package import ImagePipeline
public import VisualSearch

/// What ``ProductFinder`` found for one photo, with the provenance of every step.
///
/// The ``classification`` report says what the model answered and from which file format;
/// ``category`` is the first category of the best labels that has products, and ``query`` is the
/// exact request that returned ``products``.
public struct ProductSearchResult: Sendable, Hashable {
  /// One label considered for the category, in classification order.
  package struct CategoryAttempt: Sendable, Hashable {
    /// What happened to the label.
    package enum Outcome: String, Sendable, Hashable {
      /// The label maps to no catalog category.
      case unmapped
      /// The label maps to a category that was already tried.
      case alreadyTried
      /// The category exists but has no products.
      case noProducts
      /// The category has products and was chosen.
      case chosen
    }

    /// The classification's label.
    package var label: String
    /// The category the label maps to, if any.
    package var category: String?
    /// What happened.
    package var outcome: Outcome

    /// Creates an attempt.
    ///
    /// - Parameters:
    ///   - label: The classification's label.
    ///   - category: The mapped category.
    ///   - outcome: What happened.
    package init(label: String, category: String?, outcome: Outcome) {
      self.label = label
      self.category = category
      self.outcome = outcome
    }
  }

  /// How ``products`` were found.
  public enum Provenance: String, Sendable, Hashable {
    /// By the GTIN of a barcode in the photo: the exact product.
    case barcode
    /// By the category of the model's best labels.
    case classification
  }

  /// How ``products`` were found: by a barcode's GTIN, or by classification.
  public var provenance: Provenance = .classification
  /// The barcode whose GTIN found the products; otherwise the first barcode read that carries a
  /// GTIN (which the catalog does not hold), or `nil` when none was read.
  public var barcode: Barcode?
  /// The model's report: its classifications, model name and the photo's file format.
  public var classification: ClassificationReport
  /// The chosen category; for a barcode, its product's category (empty when the catalog gives
  /// none).
  public var category: String
  /// Every label considered, in order, and why the category was chosen.
  package var categoryAttempts: [CategoryAttempt]
  /// The exact URL (service) or relative query (offline catalog) that returned ``products``:
  /// the category's, or the GTIN's.
  public var query: String
  /// The products of the chosen category, or the product with the barcode's GTIN, with the
  /// properties the query selects.
  public var products: [Product]
  /// The products whose pictures are closest to the photo, from any category, best first, when
  /// the finder searched a visual-search index; `nil` when it searched none.
  public var similar: [ProductMatch]?
  /// The time of each stage.
  package var timings: SearchTimings

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - classification: The model's report.
  ///   - category: The chosen category.
  ///   - categoryAttempts: The labels considered.
  ///   - query: The exact query used.
  ///   - products: The products.
  ///   - timings: The time of each stage.
  package init(
    classification: ClassificationReport, category: String, categoryAttempts: [CategoryAttempt],
    query: String, products: [Product], timings: SearchTimings
  ) {
    self.classification = classification
    self.category = category
    self.categoryAttempts = categoryAttempts
    self.query = query
    self.products = products
    self.timings = timings
  }

  /// The model's classifications, best first.
  public var classifications: [Classification] { classification.classifications }

  /// What preprocessing did: the stored size, the orientation applied and the crop the model saw.
  package var preprocessing: PreprocessingProvenance { classification.preprocessing }
}
