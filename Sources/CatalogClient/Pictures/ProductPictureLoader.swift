package import Foundation

/// Fetches product pictures from the service's own origin, with a bounded cache.
///
/// A `PictureUrl` such as `/imgs/HT-1000.jpg` is resolved against the service root; a URL that
/// resolves to another scheme, host or port is refused, so a catalog entry cannot make the app
/// fetch from (or send credentials to) a third party. Concurrent requests for one URL share one
/// download; finished pictures stay in a least-recently-used cache bounded in bytes.
package actor ProductPictureLoader {
  /// The service root pictures are resolved against.
  package let serviceRoot: URL
  /// The most bytes the cache holds.
  package let cacheCapacityBytes: Int
  /// The largest picture accepted, in bytes.
  package let maximumPictureBytes: Int
  private let transport: any HTTPTransport
  private let headers: [String: String]
  private let timeout: Double
  private var cache: [URL: Data] = [:]
  private var recency: [URL] = []
  private var cachedBytes = 0
  private var inFlight: [URL: Task<Result<Data, CatalogError>, Never>] = [:]
  private var downloads = 0

  /// Creates a loader.
  ///
  /// - Parameters:
  ///   - serviceRoot: The OData service root; its origin is the only one pictures come from.
  ///   - transport: The HTTP transport; `nil` (the default) uses a new ``URLSessionTransport``.
  ///   - headers: Extra header fields (for example authorization) for picture requests.
  ///   - cacheCapacityBytes: The most bytes kept in the cache.
  ///   - maximumPictureBytes: The largest picture accepted.
  ///   - timeout: Seconds one picture request may take.
  package init(
    serviceRoot: URL, transport: (any HTTPTransport)? = nil,
    headers: [String: String] = [:], cacheCapacityBytes: Int = 32 << 20,
    maximumPictureBytes: Int = 8 << 20, timeout: Double = 30
  ) {
    self.serviceRoot = serviceRoot
    self.transport = transport ?? URLSessionTransport()
    self.headers = headers
    self.cacheCapacityBytes = cacheCapacityBytes
    self.maximumPictureBytes = maximumPictureBytes
    self.timeout = timeout
  }

  /// The number of downloads started so far (cache hits and joined requests do not count).
  package var downloadCount: Int { downloads }

  /// The bytes currently cached.
  package var cachedByteCount: Int { cachedBytes }

  /// Resolves a picture URL against the service root and checks its origin.
  ///
  /// - Parameter pictureUrl: The product's `PictureUrl`, relative or absolute.
  /// - Returns: The absolute URL.
  /// - Throws: ``CatalogError/Code/invalidURL`` (an empty URL included) or
  ///   ``CatalogError/Code/foreignOrigin``.
  package nonisolated func resolve(_ pictureUrl: String) throws(CatalogError) -> URL {
    // An empty URL would resolve to the service root itself, whose document is no picture.
    guard !pictureUrl.allSatisfy(\.isWhitespace) else {
      throw CatalogError(.invalidURL, "the product has no picture URL")
    }
    guard let url = URL(string: pictureUrl, relativeTo: serviceRoot)?.absoluteURL else {
      throw CatalogError(.invalidURL, "'\(pictureUrl)' is not a URL")
    }
    guard SameOrigin.check(url, serviceRoot) else {
      throw CatalogError(
        .foreignOrigin, "pictures are only fetched from the service's own origin",
        url: url.absoluteString)
    }
    return url
  }

  /// The picture bytes for a product's `PictureUrl`.
  ///
  /// A download shared by several callers runs to its end (bounded by the timeout and size limit)
  /// even when one caller is cancelled, so the other callers still get the picture.
  ///
  /// - Parameter pictureUrl: The product's `PictureUrl`, for example `/imgs/HT-1000.jpg`.
  /// - Returns: The picture file's bytes, as served.
  /// - Throws: ``CatalogError/Code/foreignOrigin`` for another origin, or the request's failure.
  package func picture(for pictureUrl: String) async throws(CatalogError) -> Data {
    let url = try resolve(pictureUrl)
    if let data = cache[url] {
      touch(url)
      return data
    }
    let task: Task<Result<Data, CatalogError>, Never>
    if let running = inFlight[url] {
      task = running
    } else {
      downloads += 1
      let request = HTTPRequest(
        url: url, headers: headers, timeout: timeout, maximumResponseBytes: maximumPictureBytes)
      let transport = self.transport
      task = Task {
        do throws(CatalogError) {
          let response = try await transport.send(request)
          guard (200..<300).contains(response.statusCode) else {
            throw CatalogError(
              .httpStatus, "the picture request answered HTTP \(response.statusCode)",
              httpStatus: response.statusCode, url: url.absoluteString)
          }
          return .success(response.body)
        } catch {
          return .failure(error)
        }
      }
      inFlight[url] = task
    }
    let result = await task.value
    inFlight[url] = nil
    let data = try result.get()
    store(data, for: url)
    return data
  }

  /// Empties the cache.
  package func removeAllCachedPictures() {
    cache.removeAll()
    recency.removeAll()
    cachedBytes = 0
  }

  private func touch(_ url: URL) {
    if let index = recency.firstIndex(of: url) {
      recency.remove(at: index)
    }
    recency.append(url)
  }

  private func store(_ data: Data, for url: URL) {
    guard cache[url] == nil, data.count <= cacheCapacityBytes else {
      return
    }
    cache[url] = data
    cachedBytes += data.count
    touch(url)
    while cachedBytes > cacheCapacityBytes, let oldest = recency.first {
      recency.removeFirst()
      cachedBytes -= cache.removeValue(forKey: oldest)?.count ?? 0
    }
  }
}
