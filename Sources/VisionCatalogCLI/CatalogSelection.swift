import VisionCatalog

/// The catalog a subcommand reads, with the credentials for a service.
struct CatalogSelection {
  /// Where the products come from.
  let source: CatalogSource
  /// What to send in the `Authorization` header; only ever set for a service.
  let credentials: ServiceCredentials?

  /// Makes the provider; for a service one whose HTTP 401 and 403 errors say what to check.
  func makeProvider() throws(CatalogError) -> any CatalogProvider {
    let provider = try source.makeProvider(
      configuration: HTTPCatalogProvider.Configuration(
        authorization: credentials?.authorization))
    guard case .service = source else {
      return provider
    }
    return CredentialHintingProvider(base: provider, credentials: credentials)
  }
}
