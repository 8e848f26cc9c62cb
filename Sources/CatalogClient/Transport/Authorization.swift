import Foundation

/// Credentials sent in the `Authorization` header of every request to the service.
public enum Authorization: Sendable, Hashable {
  /// HTTP Basic authentication.
  case basic(user: String, password: String)
  /// An OAuth bearer token.
  case bearer(String)

  /// The `Authorization` header value: `Basic` with the base64 of `user:password`, or
  /// `Bearer` with the token.
  public var headerValue: String {
    switch self {
    case .basic(let user, let password):
      return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    case .bearer(let token):
      return "Bearer " + token
    }
  }
}

extension Authorization: CustomStringConvertible, CustomDebugStringConvertible {
  /// The kind of credentials and the user, never the password or token, so that printing or
  /// dumping a value cannot leak a secret into a log.
  public var description: String {
    switch self {
    case .basic(let user, _): "Basic(user: \(user), password: redacted)"
    case .bearer: "Bearer(token: redacted)"
    }
  }

  /// The same redacted text as ``description``.
  public var debugDescription: String { description }
}
