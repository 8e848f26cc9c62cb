import Foundation
import VisionCatalog

/// The JSON objects `--json` prints, with the keys of the CLI contract (Docs/Design.md section
/// 6).
enum JSONShapes {
  /// The photo as stored, the orientation applied (1...8; HEIF and AVIF decode upright, so 1)
  /// and the file format it was decoded from (`png`, `jpeg`, `webp`, `heif` or `avif`; absent
  /// for a photo given decoded).
  struct Image: Encodable {
    let width: Int
    let height: Int
    let orientation: Int
    let format: String?

    init(_ report: ClassificationReport) {
      let provenance = report.preprocessing
      width = provenance.sourceWidth
      height = provenance.sourceHeight
      orientation = Int(provenance.orientation.rawValue)
      format = report.format?.rawValue
    }
  }

  /// The part of the upright photo the model saw.
  struct Crop: Encodable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    init(_ rect: PixelRect) {
      x = rect.x
      y = rect.y
      width = rect.width
      height = rect.height
    }
  }

  /// One product.
  struct Product: Encodable {
    let productId: String
    let name: String?
    let categoryName: String?
    let price: Decimal?
    let currencyCode: String?
    let pictureUrl: String?

    init(_ product: VisionCatalog.Product) {
      productId = product.productId
      name = product.name
      categoryName = product.categoryName
      price = product.price
      currencyCode = product.currencyCode
      pictureUrl = product.pictureUrl
    }
  }

  /// One label considered for the category.
  struct CategoryAttempt: Encodable {
    let label: String
    let category: String?
    let outcome: String

    init(_ attempt: ProductSearchResult.CategoryAttempt) {
      label = attempt.label
      category = attempt.category
      outcome = attempt.outcome.rawValue
    }
  }

  /// `classify --json`.
  struct Classify: Encodable {
    let image: Image
    let classifications: [Classification]
    let timingsMs: [String: Double]

    init(_ report: ClassificationReport) {
      image = Image(report)
      classifications = report.classifications
      timingsMs = JSONShapes.milliseconds(report.timings)
    }
  }

  /// One line of a batch command (`classify`, `barcodes`): `"file"` and either the single-photo
  /// `--json` keys or `"error"`.
  struct BatchLine<Result: Encodable & Sendable>: Encodable, Sendable {
    let file: String
    var result: Result?
    var error: String?

    init(file: String) {
      self.file = file
    }

    enum CodingKeys: String, CodingKey {
      case file, error
    }

    func encode(to encoder: any Encoder) throws {
      try result?.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(file, forKey: .file)
      try container.encodeIfPresent(error, forKey: .error)
    }
  }

  /// `find --json`.
  struct Find: Encodable {
    let image: Image
    let crop: Crop
    let classifications: [Classification]
    let category: String
    let categoryAttempts: [CategoryAttempt]
    let query: String
    let products: [Product]
    let barcode: Barcode?
    let provenance: String
    let timingsMs: [String: Double]

    enum CodingKeys: String, CodingKey {
      case image, crop, classifications, category, categoryAttempts, query, products, barcode
      case provenance, timingsMs
    }

    init(_ result: ProductSearchResult) {
      image = Image(result.classification)
      crop = Crop(result.preprocessing.cropRect)
      classifications = result.classifications
      category = result.category
      categoryAttempts = result.categoryAttempts.map(CategoryAttempt.init)
      query = result.query
      products = result.products.map(Product.init)
      barcode = result.barcode.map(Barcode.init)
      provenance = result.provenance.rawValue
      let stages = result.timings.classification
      var timings = JSONShapes.milliseconds(stages)
      timings["classify"] = JSONShapes.milliseconds(stages.preprocess + stages.inference)
      timings["catalog"] = JSONShapes.milliseconds(result.timings.catalog)
      timings["barcodes"] = JSONShapes.milliseconds(result.timings.barcodes)
      timings["total"] = JSONShapes.milliseconds(result.timings.total)
      timingsMs = timings
    }

    /// Encodes every key, `"barcode": null` included when no barcode was read.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(image, forKey: .image)
      try container.encode(crop, forKey: .crop)
      try container.encode(classifications, forKey: .classifications)
      try container.encode(category, forKey: .category)
      try container.encode(categoryAttempts, forKey: .categoryAttempts)
      try container.encode(query, forKey: .query)
      try container.encode(products, forKey: .products)
      try container.encode(barcode, forKey: .barcode)
      try container.encode(provenance, forKey: .provenance)
      try container.encode(timingsMs, forKey: .timingsMs)
    }
  }

  /// `products --json`.
  struct Listing: Encodable {
    let category: String
    let query: String
    let products: [Product]

    init(category: String, query: String, products: [VisionCatalog.Product]) {
      self.category = category
      self.query = query
      self.products = products.map(Product.init)
    }
  }

  /// The stages keyed `decode`, `preprocess`, `inference` and `total`.
  static func milliseconds(_ timings: ClassificationTimings) -> [String: Double] {
    [
      "decode": milliseconds(timings.decode), "preprocess": milliseconds(timings.preprocess),
      "inference": milliseconds(timings.inference), "total": milliseconds(timings.total),
    ]
  }

  static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }
}
