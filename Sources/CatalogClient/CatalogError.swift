/// The one error type of CatalogClient: a failed query, request, response or picture fetch.
///
/// Context travels in the properties: the HTTP status when a server answered, the OData error the
/// server sent (v4 and SAP v2 shapes are both parsed), and the URL involved.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure this is; compare with the static members such as ``Code/timeout``.
  ///
  /// A struct rather than an enum so that later versions can add kinds without breaking a
  /// caller's `switch`; `description` is the kind's name, such as `timeout`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case unsupportedQuery
      case invalidURL
      case unreachable
      case timeout
      case cancelled
      case httpStatus
      case malformedResponse
      case responseTooLarge
      case pagingLimitExceeded
      case foreignOrigin
      case notFound
      case invalidCatalog
      case invalidMetadata
      case decodingFailed
      case invalidArgument
      case invalidSchema
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `timeout`.
    public var description: String { kind.rawValue }

    /// The query cannot be expressed (for example `$search` on OData v2, or a bad option name).
    public static let unsupportedQuery = Code(.unsupportedQuery)
    /// A URL could not be formed or resolved.
    public static let invalidURL = Code(.invalidURL)
    /// The server could not be reached (connection refused, DNS failure, reset).
    public static let unreachable = Code(.unreachable)
    /// The request did not complete within its time limit.
    public static let timeout = Code(.timeout)
    /// The surrounding task was cancelled.
    public static let cancelled = Code(.cancelled)
    /// The server answered with a non-success HTTP status; see ``CatalogError/httpStatus``.
    public static let httpStatus = Code(.httpStatus)
    /// The response body was not the JSON (or plain text) the protocol prescribes.
    public static let malformedResponse = Code(.malformedResponse)
    /// The response body exceeded the configured size limit.
    public static let responseTooLarge = Code(.responseTooLarge)
    /// Following next links did not end within the configured page limit.
    public static let pagingLimitExceeded = Code(.pagingLimitExceeded)
    /// A picture URL points outside the service's own origin.
    public static let foreignOrigin = Code(.foreignOrigin)
    /// The addressed entity does not exist (offline provider; servers report HTTP 404).
    public static let notFound = Code(.notFound)
    /// A local catalog file could not be read or decoded.
    public static let invalidCatalog = Code(.invalidCatalog)
    /// A service's `$metadata` document could not be read: not well-formed EDMX, over a size or
    /// nesting bound, or inconsistent (such as an entity set of an undefined type); the message
    /// says which.
    public static let invalidMetadata = Code(.invalidMetadata)
    /// An entity could not be decoded into the requested Swift type.
    public static let decodingFailed = Code(.decodingFailed)
    /// An argument is out of range, such as a negative `$top` or a function of a property in
    /// `$select`; the message names the argument.
    public static let invalidArgument = Code(.invalidArgument)
    /// A catalog schema does not fit the service's `$metadata` (a name is missing or has the
    /// wrong type), or none could be recognized; the message names what the service has instead.
    public static let invalidSchema = Code(.invalidSchema)
  }

  /// The kind of failure.
  public let code: Code
  /// A human-readable explanation.
  public let message: String
  /// The HTTP status the server answered with, when there was an answer.
  public let httpStatus: Int?
  /// The OData error the server put in the body, when it sent one.
  package let serviceError: ODataServiceError?
  /// The URL of the request or picture involved, when there was one.
  public let url: String?

  /// The error code of the OData error the server put in the body, when it sent one; its
  /// message is part of ``message``.
  public var serviceErrorCode: String? { serviceError?.code }

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - message: A human-readable explanation.
  ///   - httpStatus: The HTTP status, when a server answered.
  ///   - url: The URL involved.
  public init(_ code: Code, _ message: String, httpStatus: Int? = nil, url: String? = nil) {
    self.init(code, message, httpStatus: httpStatus, serviceError: nil, url: url)
  }

  /// Creates an error with the OData error the server sent.
  package init(
    _ code: Code, _ message: String, httpStatus: Int? = nil,
    serviceError: ODataServiceError?, url: String? = nil
  ) {
    self.code = code
    self.message = message
    self.httpStatus = httpStatus
    self.serviceError = serviceError
    self.url = url
  }

  /// A one-line description with the code, status, service error and URL.
  public var description: String {
    var text = "CatalogError.\(code): \(message)"
    if let httpStatus {
      text += " (HTTP \(httpStatus))"
    }
    if let serviceError {
      text += " [\(serviceError.code): \(serviceError.message)]"
    }
    if let url {
      text += " <\(url)>"
    }
    return text
  }
}

/// The error object an OData service sends in a failed response's body.
///
/// v4 sends `{"error":{"code":…,"message":…}}`; SAP's v2 services send
/// `{"error":{"code":…,"message":{"lang":…,"value":…}}}`. Both parse into this value.
package struct ODataServiceError: Sendable, Hashable {
  /// The service's error code (a string in every known server).
  package var code: String
  /// The error message.
  package var message: String
  /// The message language, when the SAP v2 shape carries one.
  package var language: String?

  /// Creates a service error.
  ///
  /// - Parameters:
  ///   - code: The service's error code.
  ///   - message: The error message.
  ///   - language: The message language, when known.
  package init(code: String, message: String, language: String? = nil) {
    self.code = code
    self.message = message
    self.language = language
  }
}
