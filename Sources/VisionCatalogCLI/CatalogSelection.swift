import VisionCatalog

/// The catalog a subcommand reads, with the credentials for a service and how its schema is
/// found.
struct CatalogSelection {
  /// How the catalog schema is found.
  enum SchemaRequest {
    /// From the source's `$metadata`, with the names given on the command line.
    case discover(entitySet: String?, categoryProperty: String?, gtinProperty: String?)
    /// From a schema file, checked against `$metadata`.
    case file(CatalogSchema)
  }

  /// Where the products come from.
  let source: CatalogSource
  /// What to send in the `Authorization` header; only ever set for a service.
  let credentials: ServiceCredentials?
  /// How the schema is found.
  let schema: SchemaRequest

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

  /// Makes the provider and reads the catalog's schema through it.
  ///
  /// - Throws: One failure line for a provider that cannot be made, a `$metadata` that cannot
  ///   be read, or a schema that does not fit it.
  func connect() async throws(CLIError) -> (provider: any CatalogProvider, schema: CatalogSchema) {
    do {
      let provider = try makeProvider()
      switch schema {
      case .discover(let entitySet, let categoryProperty, let gtinProperty):
        return (
          provider,
          try await provider.catalogSchema(
            entitySet: entitySet, categoryProperty: categoryProperty, gtinProperty: gtinProperty)
        )
      case .file(let schema):
        return (provider, try await provider.checked(schema))
      }
    } catch {
      throw CLIError.failure(error.description + hint(for: error))
    }
  }

  /// What to do about a schema that was not recognized.
  private func hint(for error: CatalogError) -> String {
    guard error.code == .invalidSchema else { return "" }
    switch schema {
    case .discover:
      return " (give --entity-set NAME and --category-property PATH, or --schema FILE.json)"
    case .file:
      return " (fix the schema file)"
    }
  }
}
