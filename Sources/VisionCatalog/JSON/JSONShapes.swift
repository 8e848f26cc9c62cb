package import Foundation

/// The JSON objects the command line's `--json` prints and the service answers, with the keys of
/// the CLI contract.
package enum JSONShapes {
  /// The photo as stored, the orientation applied (1...8; HEIF and AVIF decode upright, so 1)
  /// and the file format it was decoded from (`png`, `jpeg`, `webp`, `heif` or `avif`; absent
  /// for a photo given decoded).
  package struct Image: Encodable {
    package let width: Int
    package let height: Int
    package let orientation: Int
    package let format: String?

    package init(_ report: ClassificationReport) {
      let provenance = report.preprocessing
      width = provenance.sourceWidth
      height = provenance.sourceHeight
      orientation = Int(provenance.orientation.rawValue)
      format = report.format?.rawValue
    }
  }

  /// The part of the upright photo the model saw.
  package struct Crop: Encodable {
    package let x: Int
    package let y: Int
    package let width: Int
    package let height: Int

    package init(_ rect: PixelRect) {
      x = rect.x
      y = rect.y
      width = rect.width
      height = rect.height
    }
  }

  /// One product.
  package struct Product: Encodable {
    package let productId: String
    package let name: String?
    package let categoryName: String?
    package let price: Decimal?
    package let currencyCode: String?
    package let pictureUrl: String?

    package init(_ product: CatalogClient.Product) {
      productId = product.productId
      name = product.name
      categoryName = product.categoryName
      price = product.price
      currencyCode = product.currencyCode
      pictureUrl = product.pictureUrl
    }
  }

  /// One label considered for the category.
  package struct CategoryAttempt: Encodable {
    package let label: String
    package let category: String?
    package let outcome: String

    package init(_ attempt: ProductSearchResult.CategoryAttempt) {
      label = attempt.label
      category = attempt.category
      outcome = attempt.outcome.rawValue
    }
  }

  /// `classify --json`.
  package struct Classify: Encodable {
    package let image: Image
    package let classifications: [Classification]
    package let timingsMs: [String: Double]

    package init(_ report: ClassificationReport) {
      image = Image(report)
      classifications = report.classifications
      timingsMs = JSONShapes.milliseconds(report.timings)
    }
  }

  /// `find --json`.
  package struct Find: Encodable {
    package let image: Image
    package let crop: Crop
    package let classifications: [Classification]
    package let category: String
    package let categoryAttempts: [CategoryAttempt]
    package let query: String
    package let products: [Product]
    package let barcode: Barcode?
    package let provenance: String
    /// The most similar products, present only when an index was searched.
    package let similar: [Match]?
    package let timingsMs: [String: Double]

    enum CodingKeys: String, CodingKey {
      case image, crop, classifications, category, categoryAttempts, query, products, barcode
      case provenance, similar, timingsMs
    }

    package init(_ result: ProductSearchResult) {
      image = Image(result.classification)
      crop = Crop(result.preprocessing.cropRect)
      classifications = result.classifications
      category = result.category
      categoryAttempts = result.categoryAttempts.map(CategoryAttempt.init)
      query = result.query
      products = result.products.map(Product.init)
      barcode = result.barcode.map(Barcode.init)
      provenance = result.provenance.rawValue
      similar = result.similar.map { $0.map(Match.init) }
      let stages = result.timings.classification
      var timings = JSONShapes.milliseconds(stages)
      timings["classify"] = JSONShapes.milliseconds(stages.preprocess + stages.inference)
      timings["catalog"] = JSONShapes.milliseconds(result.timings.catalog)
      timings["barcodes"] = JSONShapes.milliseconds(result.timings.barcodes)
      if result.similar != nil {
        timings["similarity"] = JSONShapes.milliseconds(result.timings.similarity)
      }
      timings["total"] = JSONShapes.milliseconds(result.timings.total)
      timingsMs = timings
    }

    /// Encodes every key, `"barcode": null` included when no barcode was read.
    package func encode(to encoder: any Encoder) throws {
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
      try container.encodeIfPresent(similar, forKey: .similar)
      try container.encode(timingsMs, forKey: .timingsMs)
    }
  }

  /// `products --json`.
  package struct Listing: Encodable {
    package let category: String
    package let query: String
    package let products: [Product]

    package init(category: String, query: String, products: [CatalogClient.Product]) {
      self.category = category
      self.query = query
      self.products = products.map(Product.init)
    }
  }

  /// The stages keyed `decode`, `preprocess`, `inference` and `total`.
  package static func milliseconds(_ timings: ClassificationTimings) -> [String: Double] {
    [
      "decode": milliseconds(timings.decode), "preprocess": milliseconds(timings.preprocess),
      "inference": milliseconds(timings.inference), "total": milliseconds(timings.total),
    ]
  }

  package static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }
}
