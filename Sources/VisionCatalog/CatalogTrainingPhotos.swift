public import CatalogClient
public import ClassifierKit
import Foundation
import ImagePipeline

/// A catalog's products as training photos: each product's picture, labeled with its category,
/// so a classifier can be trained for the catalog's own categories.
///
/// Pictures of a service come through a `ProductPictureLoader` (same origin only, bounded in
/// size and time); those of a catalog file are files relative to the file's folder (a
/// `PictureUrl` of `/imgs/HT-1000.jpg` is `imgs/HT-1000.jpg` next to the catalog). A product
/// without a category or picture, or whose picture cannot be fetched, is skipped and listed,
/// never fatal; a picture that is not an image is skipped later by the trainer.
public struct CatalogTrainingPhotos: Sendable {
  /// The largest picture read from a catalog file's folder.
  public static let maximumPictureBytes = 32 << 20

  /// The products' pictures, labeled with their categories, in the order
  /// `CatalogProvider/allProducts(schema:maximumPages:)` lists them.
  public var photos: [TrainingPhoto]
  /// The products skipped, and why.
  public var skipped: [SkippedPhoto]
  /// The number of products in the catalog.
  public var productCount: Int

  /// Reads every product and its picture.
  ///
  /// - Parameters:
  ///   - source: Where the catalog is; the bundled sample catalog has no pictures.
  ///   - provider: The source's provider (`CatalogSource/makeProvider(configuration:)`).
  ///   - schema: Where the catalog keeps its products; ESPM's shape by default.
  ///   - pictureHeaders: Header fields for a service's picture requests, such as its
  ///     authorization.
  ///   - maximumPages: The most pages of products to follow.
  ///   - progress: Called after each product with the number done and the total.
  /// - Returns: The photos and the skipped products.
  /// - Throws: ``VisionCatalogError`` with stage `catalog` when the products cannot be read or
  ///   no product has a picture.
  public static func load(
    from source: CatalogSource, provider: any CatalogProvider, schema: CatalogSchema = .espm,
    pictureHeaders: [String: String] = [:], maximumPages: Int = 1_000,
    progress: (Int, Int) -> Void = { _, _ in }
  ) async throws(VisionCatalogError) -> CatalogTrainingPhotos {
    let products: [Product]
    do {
      products = try await provider.allProducts(schema: schema, maximumPages: maximumPages)
    } catch {
      throw VisionCatalogError(.catalog, "cannot read the catalog's products", underlying: error)
    }
    let pictures = CatalogPictures(source, headers: pictureHeaders)
    var result = CatalogTrainingPhotos(photos: [], skipped: [], productCount: products.count)
    for (index, product) in products.enumerated() {
      let category = product.categoryName ?? ""
      let name = "product \(product.productId)"
      do throws(PictureFailure) {
        guard !category.isEmpty else { throw PictureFailure("it has no category") }
        guard let url = product.pictureUrl, !url.isEmpty else {
          throw PictureFailure("it has no picture")
        }
        let bytes = try await pictures.load(url)
        result.photos.append(
          TrainingPhoto(label: category, source: .data(bytes, name: "\(name) (\(url))")))
      } catch {
        result.skipped.append(SkippedPhoto(name: name, label: category, reason: error.message))
      }
      progress(index + 1, products.count)
    }
    guard !result.photos.isEmpty else {
      throw VisionCatalogError(
        .catalog,
        "none of the catalog's \(products.count) products has a picture that could be read"
          + (result.skipped.first.map { " (first: \($0.name): \($0.reason))" } ?? ""))
    }
    return result
  }
}
