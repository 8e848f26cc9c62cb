import CatalogClient
import Foundation

/// Why one product's picture was not taken.
struct PictureFailure: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

/// Where a catalog's pictures come from: a service's origin, or a catalog file's folder.
struct CatalogPictures: Sendable {
  /// The largest picture read from a catalog file's folder.
  static let maximumPictureBytes = CatalogTrainingPhotos.maximumPictureBytes

  let loader: ProductPictureLoader?
  let folder: URL?

  init(_ source: CatalogSource, headers: [String: String]) {
    switch source {
    case .service(let root, _):
      loader = ProductPictureLoader(
        serviceRoot: root, headers: headers, cacheCapacityBytes: 1 << 20)
      folder = nil
    case .file(let url):
      loader = nil
      folder = url.deletingLastPathComponent()
    case .bundled:
      loader = nil
      folder = nil
    }
  }

  func load(_ pictureUrl: String) async throws(PictureFailure) -> Data {
    if let loader {
      do {
        return try await loader.picture(for: pictureUrl)
      } catch {
        throw PictureFailure("its picture cannot be fetched: \(error.message)")
      }
    }
    guard let folder else { throw PictureFailure("the bundled catalog has no pictures") }
    let relative = pictureUrl.drop { $0 == "/" }
    let parts = relative.split(separator: "/")
    guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." }),
      !pictureUrl.contains(":")
    else {
      throw PictureFailure("its picture '\(pictureUrl)' is not a path inside the catalog's folder")
    }
    let url = parts.reduce(folder) { $0.appendingPathComponent(String($1)) }
    let size =
      ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?
      .intValue
    guard let size else { throw PictureFailure("its picture \(url.path) does not exist") }
    guard size <= Self.maximumPictureBytes else {
      throw PictureFailure("its picture \(url.path) has \(size) bytes, above the limit")
    }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw PictureFailure("its picture \(url.path) cannot be read")
    }
  }
}
