import Foundation

/// Credentials sent in the `Authorization` header of every request to the service.
public enum Authorization: Sendable, Hashable {
  /// HTTP Basic authentication.
  case basic(user: String, password: String)
  /// An OAuth bearer token.
  case bearer(String)

  /// The header value.
  var headerValue: String {
    switch self {
    case .basic(let user, let password):
      return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    case .bearer(let token):
      return "Bearer " + token
    }
  }
}
