public import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A server's answer to ``LocalHTTP/request(_:_:method:body:contentType:)``.
public struct LocalHTTPAnswer: Sendable {
  /// The status code.
  public let status: Int
  /// The body.
  public let body: Data
  /// The headers, names lowercased.
  public let headers: [String: String]
  /// The body as UTF-8 text.
  public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Requests to a server the test started on 127.0.0.1, with URLSession as the client.
public enum LocalHTTP {
  /// Sends one request and returns the whole answer.
  public static func request(
    _ port: Int, _ path: String, method: String = "GET", body: Data? = nil,
    contentType: String? = nil
  ) async throws -> LocalHTTPAnswer {
    guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
      throw URLError(.badURL)
    }
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
    var headers: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String {
        headers[name.lowercased()] = value
      }
    }
    return LocalHTTPAnswer(status: http.statusCode, body: data, headers: headers)
  }
}
