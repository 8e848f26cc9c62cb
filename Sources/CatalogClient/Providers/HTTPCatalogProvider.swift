public import Foundation

/// A ``CatalogProvider`` that queries an OData v2 or v4 service over HTTP.
///
/// Requests go through an injectable ``HTTPTransport`` (`URLSession` by default).
/// GETs answered with 429 or 503 are retried with backoff; every failure is one
/// ``CatalogError`` carrying the HTTP status and the service's parsed OData error.
/// Each request is bounded by ``Configuration/timeout`` and ``Configuration/maximumResponseBytes``,
/// and each call (all its pages and retries) by ``Configuration/totalDeadline``, past which it
/// ends with ``CatalogError/Code/timeout``.
public struct HTTPCatalogProvider: CatalogProvider {
  /// Settings of a provider.
  public struct Configuration: Sendable, Hashable {
    /// Extra header fields sent with every request (for example `sap-client`).
    public var headers: [String: String]
    /// Credentials for the `Authorization` header.
    public var authorization: Authorization?
    /// The longest one request may take, in seconds; 30 by default.
    public var timeout: Double
    /// The longest one call may take, in seconds, with all its pages, retries and waits between
    /// them; 120 by default.
    ///
    /// Every request gets the smaller of ``timeout`` and what is left, and a retry whose wait
    /// would pass the deadline is not made, so a slow, flaky or endlessly paging service cannot
    /// hold a caller longer than this.
    public var totalDeadline: Double
    /// The largest response body accepted, in bytes; 16 MiB by default.
    public var maximumResponseBytes: Int
    /// How often a GET answered with 429 or 503 is retried after the first attempt; 2 by
    /// default, 0 turns retrying off.
    public var maximumRetries: Int
    /// The delay before the first retry, in seconds; each further retry doubles it; 0.25 by
    /// default.
    public var initialDelay: Double
    /// The longest delay before a retry, in seconds; a larger `Retry-After` is shortened to it;
    /// 4 by default.
    public var maximumDelay: Double
    /// On v2, add the properties `$filter` and `$orderby` use to a non-empty `$select`.
    ///
    /// pyslet evaluates the filter and order after applying `$select`, so an unselected property
    /// reads as null: the filter silently matches nothing and ordering fails with HTTP 500.
    /// Selecting more properties never changes which rows match, so this is on by default.
    public var selectsFilteredProperties: Bool

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - headers: Extra header fields.
    ///   - authorization: Credentials.
    ///   - timeout: Seconds one request may take.
    ///   - maximumResponseBytes: The largest response body.
    ///   - maximumRetries: Retries of a 429 or 503 answer after the first attempt.
    ///   - initialDelay: Seconds before the first retry.
    ///   - maximumDelay: The longest wait before a retry, in seconds.
    ///   - selectsFilteredProperties: Whether v2 `$select` covers filtered and ordered properties.
    ///   - totalDeadline: Seconds one call may take with all its pages and retries.
    public init(
      headers: [String: String] = [:], authorization: Authorization? = nil, timeout: Double = 30,
      maximumResponseBytes: Int = 16 << 20, maximumRetries: Int = 2, initialDelay: Double = 0.25,
      maximumDelay: Double = 4, selectsFilteredProperties: Bool = true, totalDeadline: Double = 120
    ) {
      self.headers = headers
      self.authorization = authorization
      self.timeout = timeout
      self.totalDeadline = totalDeadline
      self.maximumResponseBytes = maximumResponseBytes
      self.maximumRetries = maximumRetries
      self.initialDelay = initialDelay
      self.maximumDelay = maximumDelay
      self.selectsFilteredProperties = selectsFilteredProperties
    }

    /// The delay before retry number `attempt` (0-based), honouring a `Retry-After` in seconds.
    func retryDelay(attempt: Int, retryAfter: String?) -> Double {
      if let retryAfter, let seconds = Double(retryAfter), seconds >= 0 {
        return min(seconds, maximumDelay)
      }
      return min(initialDelay * Double(1 << min(attempt, 20)), maximumDelay)
    }
  }

  /// One page of a collection.
  package struct Page: Sendable, Hashable {
    /// The entities of this page.
    package var entities: [ODataEntity]
    /// The inline count, when requested and sent.
    package var count: Int?
    /// The absolute next link, when the server sent one.
    package var nextLink: URL?
    /// The URL this page came from.
    package var url: URL
  }

  /// The service root, for example `https://host/sap/opu/odata/ESPM/`.
  public let serviceRoot: URL
  /// The protocol version the service speaks.
  public let version: ODataVersion
  /// The settings.
  public let configuration: Configuration
  private let transport: any HTTPTransport

  /// Creates a provider for a service.
  ///
  /// - Parameters:
  ///   - serviceRoot: The service root URL.
  ///   - version: The protocol version.
  ///   - transport: The HTTP transport; `nil` (the default) sends through a new `URLSession`
  ///     that receives bodies incrementally within the size limit and follows redirects only
  ///     within the request's origin.
  ///   - configuration: The settings.
  public init(
    serviceRoot: URL, version: ODataVersion, transport: (any HTTPTransport)? = nil,
    configuration: Configuration = Configuration()
  ) {
    self.serviceRoot = serviceRoot
    self.version = version
    self.transport = transport ?? URLSessionTransport()
    self.configuration = configuration
  }

  /// The exact URL the query is sent to.
  ///
  /// - Parameter query: The query.
  /// - Returns: The absolute URL text.
  /// - Throws: ``CatalogError/Code/unsupportedQuery`` when the version cannot express it.
  public func describe(_ query: ODataQuery) throws(CatalogError) -> String {
    try requestURL(for: query).absoluteString
  }

  /// Fetches the first page of a query.
  ///
  /// - Parameter query: The query.
  /// - Returns: The page with its next link, unfollowed.
  /// - Throws: ``CatalogError`` for unsupported queries and failed requests.
  package func fetchPage(_ query: ODataQuery) async throws(CatalogError) -> Page {
    try await page(at: try requestURL(for: query), deadline: startDeadline())
  }

  /// Fetches the page a next link points to.
  ///
  /// - Parameter nextLink: A next link from an earlier page, used as given (it is opaque).
  /// - Returns: The page.
  /// - Throws: ``CatalogError/Code/foreignOrigin`` when the link leaves the service's origin,
  ///   or any request failure.
  package func fetchPage(nextLink: URL) async throws(CatalogError) -> Page {
    try await page(at: try resolve(nextLink.absoluteString), deadline: startDeadline())
  }

  /// Runs a collection query, following next links up to a bound.
  ///
  /// With `maximumPages` 1 the first page's next link is returned unfollowed. Otherwise
  /// following stops when there is no next link, when `$top` entities have arrived (a server
  /// that drops `$top` from its next link is trimmed here), or when a page is empty (pyslet's
  /// memory store links to empty pages forever). A next link that repeats, or more pages than
  /// `maximumPages`, is ``CatalogError/Code/pagingLimitExceeded``.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - maximumPages: The most pages to read, at least 1; 1 reads the first page only.
  /// - Returns: The entities, the inline count and the requests made.
  /// - Throws: ``CatalogError`` for unsupported queries, failed requests and paging limits;
  ///   ``CatalogError/Code/invalidArgument`` when `maximumPages` is less than 1.
  public func fetch(_ query: ODataQuery, maximumPages: Int) async throws(CatalogError)
    -> ODataResult
  {
    try validateMaximumPages(maximumPages)
    let deadline = startDeadline()
    if query.key != nil {
      let url = try requestURL(for: query)
      let entity = try await self.entity(at: url, deadline: deadline)
      return ODataResult(entities: [entity], requests: [url.absoluteString])
    }
    var url = try requestURL(for: query)
    var seen: Set<String> = [url.absoluteString]
    var result = ODataResult(entities: [])
    while true {
      let page = try await page(at: url, deadline: deadline)
      result.requests.append(url.absoluteString)
      if result.requests.count == 1 {
        result.count = page.count
      }
      result.entities += page.entities
      if let top = query.top, result.entities.count >= top {
        result.entities.removeLast(result.entities.count - top)
        return result
      }
      guard let next = page.nextLink else {
        return result
      }
      guard maximumPages > 1 else {
        result.nextLink = next
        return result
      }
      if page.entities.isEmpty {
        return result
      }
      guard seen.insert(next.absoluteString).inserted else {
        throw CatalogError(
          .pagingLimitExceeded, "the next link repeats an earlier page", url: next.absoluteString)
      }
      guard result.requests.count < maximumPages else {
        throw CatalogError(
          .pagingLimitExceeded, "more than \(maximumPages) pages", url: next.absoluteString)
      }
      url = next
    }
  }

  /// Counts the matches of a query's filter and search with `/$count`.
  ///
  /// - Parameter query: The query; select, order and paging are ignored.
  /// - Returns: The number of matches.
  /// - Throws: ``CatalogError`` for unsupported queries and failed requests.
  public func count(_ query: ODataQuery) async throws(CatalogError) -> Int {
    let countQuery = query.countOnly()
    // `/$count` must be asked for as text; pyslet answers 406 to a JSON Accept header.
    let response = try await get(
      try requestURL(for: countQuery), accept: "text/plain", deadline: startDeadline())
    return try ODataPayload.plainCount(response.body)
  }

  /// Reads the entity a query's key addresses.
  ///
  /// - Parameter query: A query with a key.
  /// - Returns: The entity.
  /// - Throws: ``CatalogError`` (HTTP 404 when absent).
  public func entity(_ query: ODataQuery) async throws(CatalogError) -> ODataEntity {
    guard query.key != nil else {
      throw CatalogError(.unsupportedQuery, "an entity lookup needs a key")
    }
    return try await entity(at: try requestURL(for: query), deadline: startDeadline())
  }

  /// Reads the service's `$metadata` document (CSDL XML).
  ///
  /// - Returns: The document's bytes.
  /// - Throws: ``CatalogError`` for failed requests.
  public func metadata() async throws(CatalogError) -> Data? {
    let root = serviceRoot.absoluteString
    guard let url = URL(string: (root.hasSuffix("/") ? root : root + "/") + "$metadata") else {
      throw CatalogError(.invalidURL, "cannot form the $metadata URL from \(root)")
    }
    return try await get(url, accept: "application/xml", deadline: startDeadline()).body
  }

  /// A picture reference resolved against the service root, so `/imgs/HT-1000.jpg` becomes
  /// `https://host/imgs/HT-1000.jpg`; an absolute URL stays as it is.
  ///
  /// - Parameter reference: The picture property's value, or a media resource's URL.
  /// - Returns: The absolute URL text, or the reference when it is not a URL.
  public func pictureURL(for reference: String) -> String {
    let root = serviceRoot.absoluteString
    let base = URL(string: root.hasSuffix("/") ? root : root + "/")
    return URL(string: reference, relativeTo: base)?.absoluteString ?? reference
  }

  /// Fetches a CSRF token for later modifying requests (`X-CSRF-Token: Fetch`).
  ///
  /// - Returns: The token, or `nil` when the service sends none.
  /// - Throws: ``CatalogError`` for failed requests.
  public func fetchCSRFToken() async throws(CatalogError) -> String? {
    let response = try await get(
      serviceRoot, accept: "application/json", extra: ["X-CSRF-Token": "Fetch"],
      deadline: startDeadline())
    return response.headers["x-csrf-token"]
  }

  // MARK: - Requests

  func requestURL(for query: ODataQuery) throws(CatalogError) -> URL {
    var sent = query
    if version == .v2 && configuration.selectsFilteredProperties {
      sent = query.selectingFilteredProperties()
    }
    return try sent.url(serviceRoot: serviceRoot, version: version)
  }

  private func resolve(_ link: String) throws(CatalogError) -> URL {
    guard let url = URL(string: link, relativeTo: serviceRoot)?.absoluteURL else {
      throw CatalogError(.invalidURL, "cannot resolve '\(link)' against the service root")
    }
    guard SameOrigin.check(url, serviceRoot) else {
      throw CatalogError(
        .foreignOrigin, "a link leaves the service's origin", url: url.absoluteString)
    }
    return url
  }

  private func startDeadline() -> ContinuousClock.Instant {
    .now + .milliseconds(Int(min(max(configuration.totalDeadline, 0), 1e9) * 1000))
  }

  private func page(at url: URL, deadline: ContinuousClock.Instant) async throws(CatalogError)
    -> Page
  {
    let response = try await get(url, accept: "application/json", deadline: deadline)
    let collection: ODataPayload.Collection
    do {
      collection = try ODataPayload.collection(response.body, version: version)
    } catch {
      throw CatalogError(
        error.code, error.message, httpStatus: response.statusCode, url: url.absoluteString)
    }
    return Page(
      entities: collection.entities, count: collection.count,
      nextLink: try collection.nextLink.map { (link) throws(CatalogError) in try resolve(link) },
      url: url)
  }

  private func entity(at url: URL, deadline: ContinuousClock.Instant) async throws(CatalogError)
    -> ODataEntity
  {
    let response = try await get(url, accept: "application/json", deadline: deadline)
    do {
      return try ODataPayload.entity(response.body, version: version)
    } catch {
      throw CatalogError(
        error.code, error.message, httpStatus: response.statusCode, url: url.absoluteString)
    }
  }

  private func get(
    _ url: URL, accept: String, extra: [String: String] = [:],
    deadline: ContinuousClock.Instant
  ) async throws(CatalogError) -> HTTPResponse {
    var headers = configuration.headers
    headers["Accept"] = accept
    switch version {
    case .v2:
      headers["DataServiceVersion"] = "2.0"
      headers["MaxDataServiceVersion"] = "2.0"
    case .v4:
      headers["OData-Version"] = "4.0"
      headers["OData-MaxVersion"] = "4.01"
    }
    if let authorization = configuration.authorization {
      headers["Authorization"] = authorization.headerValue
    }
    headers.merge(extra) { _, new in new }
    var request = HTTPRequest(
      url: url, headers: headers, timeout: configuration.timeout,
      maximumResponseBytes: configuration.maximumResponseBytes)
    var attempt = 0
    while true {
      let left = Self.seconds(deadline - .now)
      guard left > 0 else {
        throw CatalogError(
          .timeout, "the total deadline of \(configuration.totalDeadline) s has passed",
          url: url.absoluteString)
      }
      request.timeout = min(configuration.timeout, left)
      let response = try await transport.send(request)
      if (200..<300).contains(response.statusCode) {
        return response
      }
      if [429, 503].contains(response.statusCode) && attempt < configuration.maximumRetries {
        let delay = configuration.retryDelay(
          attempt: attempt, retryAfter: response.headers["retry-after"])
        guard delay < Self.seconds(deadline - .now) else {
          throw CatalogError(
            .timeout,
            "HTTP \(response.statusCode): retrying after \(delay) s would pass the total deadline",
            httpStatus: response.statusCode, url: url.absoluteString)
        }
        do {
          try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        } catch {
          throw CatalogError(
            .cancelled, "cancelled while waiting to retry", url: url.absoluteString)
        }
        attempt += 1
        continue
      }
      let serviceError = ODataPayload.serviceError(response.body)
      throw CatalogError(
        .httpStatus,
        "the service answered HTTP \(response.statusCode)"
          + (serviceError.map { ": \($0.message)" } ?? ""),
        httpStatus: response.statusCode, serviceError: serviceError, url: url.absoluteString)
    }
  }
}

extension HTTPCatalogProvider {
  fileprivate static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}

/// Origin comparison (scheme, host, port) with default ports filled in.
enum SameOrigin {
  static func check(_ url: URL, _ root: URL) -> Bool {
    guard let scheme = url.scheme?.lowercased(), let rootScheme = root.scheme?.lowercased(),
      let host = url.host?.lowercased(), let rootHost = root.host?.lowercased()
    else {
      return false
    }
    func port(_ url: URL, _ scheme: String) -> Int {
      url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
    return scheme == rootScheme && host == rootHost && port(url, scheme) == port(root, rootScheme)
  }
}

extension ODataQuery {
  /// The query with every single-segment property of `$filter` and `$orderby` in `$select`,
  /// when `$select` is not empty (see ``HTTPCatalogProvider/Configuration/selectsFilteredProperties``).
  func selectingFilteredProperties() -> ODataQuery {
    guard !select.isEmpty, !select.contains(ODataPath("*")) else {
      return self
    }
    var paths: [ODataPath] = []
    func collect(_ operand: ODataOperand) {
      switch operand {
      case .property(let path) where path.segments.count == 1:
        paths.append(path)
      case .toLower(let inner), .toUpper(let inner):
        collect(inner)
      default:
        break
      }
    }
    func collect(_ expression: ODataExpression) {
      switch expression.node {
      case .compare(let lhs, _, let rhs), .contains(let lhs, let rhs),
        .startsWith(let lhs, let rhs), .endsWith(let lhs, let rhs):
        collect(lhs)
        collect(rhs)
      case .and(let lhs, let rhs), .or(let lhs, let rhs):
        collect(lhs)
        collect(rhs)
      case .not(let inner):
        collect(inner)
      case .isIn(let operand, _):
        collect(operand)
      case .constant:
        break
      }
    }
    if let filter {
      collect(filter)
    }
    for order in orderBy {
      collect(order.operand)
    }
    var copy = self
    for path in paths where !copy.select.contains(path) {
      copy.select.append(path)
    }
    return copy
  }
}
