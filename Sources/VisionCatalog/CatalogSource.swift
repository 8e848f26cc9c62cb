public import CatalogClient
public import Foundation

/// Where products come from: the bundled sample catalog, a catalog file, or an OData service.
public enum CatalogSource: Sendable, Hashable {
  /// The ESPM-like sample catalog that ships with the package.
  case bundled
  /// A local catalog file in the bundled catalog's JSON shape.
  case file(URL)
  /// An OData service root speaking the given protocol version.
  case service(URL, ODataVersion)

  /// Makes the provider that answers queries for this source.
  ///
  /// - Parameter configuration: Headers, timeouts and limits for a service; ignored offline.
  /// - Returns: An `OfflineCatalogProvider` or an `HTTPCatalogProvider`.
  /// - Throws: `CatalogError` when a catalog file cannot be read or parsed.
  public func makeProvider(
    configuration: HTTPCatalogProvider.Configuration = .init()
  ) throws(CatalogError) -> any CatalogProvider {
    switch self {
    case .bundled:
      return try OfflineCatalogProvider.bundled()
    case .file(let url):
      return try OfflineCatalogProvider(contentsOf: url)
    case .service(let root, let version):
      return HTTPCatalogProvider(serviceRoot: root, version: version, configuration: configuration)
    }
  }
}
