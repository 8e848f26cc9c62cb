package import Foundation

/// A local product catalog: ESPM-like categories and products, loaded from JSON.
///
/// The file format is `{"categories":[ProductCategory…],"products":[Product…]}` with the OData
/// property names (`ProductId`, `Price` as a decimal string, `UpdatedTimestamp` in ISO 8601,
/// `GTIN` as a string of digits).
/// ``bundled()`` loads the sample catalog shipped with CatalogClient, the same data the test
/// servers serve.
package struct OfflineCatalog: Sendable, Hashable, Codable {
  /// The categories, in file order.
  package var categories: [ProductCategory]
  /// The products, in file order (the order unsorted results come back in).
  package var products: [Product]

  /// The largest catalog file accepted, in bytes.
  package static let maximumFileBytes = 64 << 20

  /// Creates a catalog from values.
  ///
  /// - Parameters:
  ///   - categories: The categories.
  ///   - products: The products; ids must be unique.
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when a product id or category repeats.
  package init(categories: [ProductCategory], products: [Product]) throws(CatalogError) {
    self.categories = categories
    self.products = products
    try validate()
  }

  /// Loads a catalog from JSON data.
  ///
  /// - Parameter jsonData: The catalog JSON.
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the data is not a valid catalog.
  package init(jsonData: Data) throws(CatalogError) {
    guard jsonData.count <= Self.maximumFileBytes else {
      throw CatalogError(
        .invalidCatalog, "a catalog must not exceed \(Self.maximumFileBytes) bytes")
    }
    do {
      self = try JSONDecoder().decode(OfflineCatalog.self, from: jsonData)
    } catch {
      throw CatalogError(.invalidCatalog, "the catalog JSON is not valid: \(error)")
    }
    try validate()
  }

  /// Loads a catalog file.
  ///
  /// - Parameter url: The file URL.
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the file cannot be read or decoded.
  package init(contentsOf url: URL) throws(CatalogError) {
    let data: Data
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
      if let size = attributes[.size] as? NSNumber, size.intValue > Self.maximumFileBytes {
        throw CatalogError(
          .invalidCatalog, "a catalog must not exceed \(Self.maximumFileBytes) bytes")
      }
      data = try Data(contentsOf: url)
    } catch let error as CatalogError {
      throw error
    } catch {
      throw CatalogError(.invalidCatalog, "cannot read \(url.path): \(error)")
    }
    try self.init(jsonData: data)
  }

  /// The sample catalog bundled with CatalogClient (51 products in 15 categories).
  ///
  /// - Returns: The catalog.
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the embedded data is damaged.
  package static func bundled() throws(CatalogError) -> OfflineCatalog {
    try OfflineCatalog(jsonData: Data(BundledCatalogJSON.text.utf8))
  }

  private func validate() throws(CatalogError) {
    var ids = Set<String>()
    for product in products where !ids.insert(product.productId).inserted {
      throw CatalogError(.invalidCatalog, "product id '\(product.productId)' repeats")
    }
    var names = Set<String>()
    for category in categories where !names.insert(category.categoryName).inserted {
      throw CatalogError(.invalidCatalog, "category '\(category.categoryName)' repeats")
    }
  }
}
