/// The one error type of WebService.
package struct WebServiceError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred; new kinds may be added.
  package struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case cannotListen, invalidArgument
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `cannotListen`.
    package var description: String { kind.rawValue }

    /// The server could not listen on the address and port (in use, or not allowed).
    package static let cannotListen = Code(.cannotListen)
    /// A setting is out of range, or the host is not an address.
    package static let invalidArgument = Code(.invalidArgument)
  }

  /// What kind of failure occurred.
  package let code: Code
  /// A human-readable explanation.
  package let message: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure occurred.
  ///   - message: A human-readable explanation.
  package init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The message prefixed with the failure kind.
  package var description: String { "\(code): \(message)" }
}
