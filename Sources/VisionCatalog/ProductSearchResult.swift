public import CatalogClient
public import ClassifierKit
public import ImagePipeline

/// What ``ProductFinder`` found for one photo, with the provenance of every step.
///
/// Encodes to the JSON that `vision-catalog find --json` prints (DESIGN section 7): `image`,
/// `classifications`, `timingsMs`, `category`, `query`, `products`, plus `categoryAttempts`, which
/// says why the category was chosen.
public struct ProductSearchResult: Sendable, Hashable, Codable {
  /// The photo as stored, and the EXIF orientation that was applied to it.
  public struct ImageSummary: Sendable, Hashable, Codable {
    /// The stored width in pixels (before orientation).
    public var width: Int
    /// The stored height in pixels (before orientation).
    public var height: Int
    /// The EXIF orientation applied (1...8; 1 means none).
    public var orientation: Int

    /// Creates a summary of an image's size and orientation.
    ///
    /// - Parameter image: The decoded photo.
    public init(_ image: RasterImage) {
      width = image.width
      height = image.height
      orientation = Int(image.orientation.rawValue)
    }

    /// Creates a summary from a stored size and orientation.
    ///
    /// - Parameters:
    ///   - width: The stored width in pixels.
    ///   - height: The stored height in pixels.
    ///   - orientation: The EXIF orientation applied (1...8).
    public init(width: Int, height: Int, orientation: Int) {
      self.width = width
      self.height = height
      self.orientation = orientation
    }
  }

  /// The part of the upright photo the model saw, in upright source pixels.
  public struct CropSummary: Sendable, Hashable, Codable {
    /// The left edge.
    public var x: Int
    /// The top edge.
    public var y: Int
    /// The width.
    public var width: Int
    /// The height.
    public var height: Int

    /// Creates a summary of a crop rectangle.
    ///
    /// - Parameter rect: The crop rectangle.
    public init(_ rect: PixelRect) {
      x = rect.x
      y = rect.y
      width = rect.width
      height = rect.height
    }
  }

  /// One label considered for the category, in classification order.
  public struct CategoryAttempt: Sendable, Hashable, Codable {
    /// What happened to the label.
    public enum Outcome: String, Sendable, Hashable, Codable {
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
    public var label: String
    /// The category the label maps to, if any.
    public var category: String?
    /// What happened.
    public var outcome: Outcome

    /// Creates an attempt.
    ///
    /// - Parameters:
    ///   - label: The classification's label.
    ///   - category: The mapped category.
    ///   - outcome: What happened.
    public init(label: String, category: String?, outcome: Outcome) {
      self.label = label
      self.category = category
      self.outcome = outcome
    }
  }

  /// The photo's stored size and applied orientation.
  public var image: ImageSummary
  /// The part of the upright photo the model saw, when the model reports it (a
  /// `NetworkClassifier` does).
  public var crop: CropSummary?
  /// The model's classifications, best first.
  public var classifications: [Classification]
  /// The chosen category.
  public var category: String
  /// Every label considered, in order, and why the category was chosen.
  public var categoryAttempts: [CategoryAttempt]
  /// The exact URL (service) or relative query (offline catalog) that returned ``products``.
  public var query: String
  /// The products of the chosen category.
  public var products: [ProductSummary]
  /// Milliseconds spent per stage: `decode`, `classify` (with `preprocess` and `inference` when
  /// the model reports them), `catalog`, `total`.
  public var timingsMs: [String: Double]

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - image: The photo's size and orientation.
  ///   - crop: The part of the upright photo the model saw, if known.
  ///   - classifications: The classifications, best first.
  ///   - category: The chosen category.
  ///   - categoryAttempts: The labels considered.
  ///   - query: The exact query used.
  ///   - products: The products.
  ///   - timingsMs: Milliseconds per stage.
  public init(
    image: ImageSummary, crop: CropSummary?, classifications: [Classification], category: String,
    categoryAttempts: [CategoryAttempt], query: String, products: [ProductSummary],
    timingsMs: [String: Double]
  ) {
    self.image = image
    self.crop = crop
    self.classifications = classifications
    self.category = category
    self.categoryAttempts = categoryAttempts
    self.query = query
    self.products = products
    self.timingsMs = timingsMs
  }
}
