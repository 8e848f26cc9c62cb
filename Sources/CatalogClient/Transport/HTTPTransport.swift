public import Foundation

/// One HTTP request as a provider sends it through an ``HTTPTransport``.
public struct HTTPRequest: Sendable, Hashable {
  /// The absolute URL.
  public var url: URL
  /// The method, for example `GET`.
  public var method: String
  /// Header fields to send.
  public var headers: [String: String]
  /// The longest the whole exchange may take, in seconds.
  public var timeout: Double
  /// The largest response body accepted, in bytes.
  public var maximumResponseBytes: Int

  /// Creates a request.
  ///
  /// - Parameters:
  ///   - url: The absolute URL.
  ///   - method: The method.
  ///   - headers: Header fields to send.
  ///   - timeout: The longest the exchange may take, in seconds.
  ///   - maximumResponseBytes: The largest body accepted.
  public init(
    url: URL, method: String = "GET", headers: [String: String] = [:], timeout: Double = 30,
    maximumResponseBytes: Int = 16 << 20
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.timeout = timeout
    self.maximumResponseBytes = maximumResponseBytes
  }
}

/// One HTTP response as an ``HTTPTransport`` returns it.
public struct HTTPResponse: Sendable, Hashable {
  /// The status code.
  public var statusCode: Int
  /// Header fields, with lower-cased names.
  public var headers: [String: String]
  /// The body, at most the request's ``HTTPRequest/maximumResponseBytes``.
  public var body: Data

  /// Creates a response.
  ///
  /// - Parameters:
  ///   - statusCode: The status code.
  ///   - headers: Header fields; names are lower-cased.
  ///   - body: The body.
  public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.statusCode = statusCode
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    self.body = body
  }
}

/// Sends HTTP requests for a provider; inject your own to add a proxy, logging or fixed answers.
///
/// An implementation must honour the request's timeout and size limit, stop when its task is
/// cancelled, and report failures as ``CatalogError`` (``CatalogError/Code/unreachable``,
/// ``CatalogError/Code/timeout``, ``CatalogError/Code/cancelled``,
/// ``CatalogError/Code/responseTooLarge``). Any status code is a response, not an error.
public protocol HTTPTransport: Sendable {
  /// Sends one request.
  ///
  /// - Parameter request: The request.
  /// - Returns: The response, whatever its status.
  /// - Throws: ``CatalogError`` when no complete response arrived.
  func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse
}
