import Foundation
import VisionCatalog

/// Passes every call to a service's provider and rewrites an HTTP 401 or 403 answer into one
/// error that says which option to check, naming the user but never the secret.
struct CredentialHintingProvider: CatalogProvider {
  let base: any CatalogProvider
  let credentials: ServiceCredentials?

  func describe(_ query: ODataQuery) throws(CatalogError) -> String {
    try base.describe(query)
  }

  func fetch(_ query: ODataQuery, maximumPages: Int) async throws(CatalogError)
    -> ODataResult
  {
    do {
      return try await base.fetch(query, maximumPages: maximumPages)
    } catch {
      throw hinted(error)
    }
  }

  func count(_ query: ODataQuery) async throws(CatalogError) -> Int {
    do {
      return try await base.count(query)
    } catch {
      throw hinted(error)
    }
  }

  func entity(_ query: ODataQuery) async throws(CatalogError) -> ODataEntity {
    do {
      return try await base.entity(query)
    } catch {
      throw hinted(error)
    }
  }

  func metadata() async throws(CatalogError) -> Data? {
    do {
      return try await base.metadata()
    } catch {
      throw hinted(error)
    }
  }

  func pictureURL(for reference: String) -> String {
    base.pictureURL(for: reference)
  }

  private func hinted(_ error: CatalogError) -> CatalogError {
    let hint: String
    switch (error.httpStatus, credentials) {
    case (401, nil):
      hint =
        "the service answered HTTP 401: it requires authentication; give --user NAME with "
        + "\(ServiceCredentials.passwordVariable) or --password-file FILE, "
        + "or set \(ServiceCredentials.tokenVariable)"
    case (401, .some(let credentials)):
      switch credentials.authorization {
      case .basic:
        hint =
          "the service answered HTTP 401 for \(credentials.subject): check --user and the "
          + "password (\(ServiceCredentials.passwordVariable) or --password-file)"
      case .bearer:
        hint =
          "the service answered HTTP 401: check \(credentials.subject), which it did not accept"
      }
    case (403, .some(let credentials)):
      hint =
        "the service answered HTTP 403: \(credentials.subject) is not allowed to read this"
    default:
      return error
    }
    return CatalogError(
      error.code, hint, httpStatus: error.httpStatus, serviceError: error.serviceError,
      url: error.url)
  }
}
