package import Foundation

/// A request the server has read whole: method, path, the headers a handler reads, and the
/// body (the `image` field of a `multipart/form-data` body).
package struct WebRequest: Sendable {
  /// The method, such as `GET`.
  package let method: String
  /// The path without the query string, as the client sent it.
  package let path: String
  /// The `Content-Type` header, if any.
  package let contentType: String?
  /// The `Accept` header, if any.
  package let accept: String?
  /// The body, or the multipart field `image`.
  package let body: Data
  /// Whether the body came from a `multipart/form-data` field.
  package let isMultipart: Bool
  /// A problem the server found reading the body (a multipart body cut short or without an
  /// `image` field), as a short code; the handler answers it with 400.
  package let readError: String?

  /// A request, as tests and other front ends make them.
  package init(
    method: String, path: String, contentType: String? = nil, accept: String? = nil,
    body: Data = Data(), isMultipart: Bool = false, readError: String? = nil
  ) {
    self.method = method
    self.path = path
    self.contentType = contentType
    self.accept = accept
    self.body = body
    self.isMultipart = isMultipart
    self.readError = readError
  }
}
