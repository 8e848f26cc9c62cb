/// A handler's answer: status, content type, extra headers and body.
package struct WebResponse: Sendable {
  /// The status code.
  package var status: Int
  /// The `Content-Type` header.
  package var contentType: String
  /// Extra headers, such as `Retry-After`.
  package var headers: [(name: String, value: String)]
  /// The body.
  package var body: [UInt8]

  /// A response.
  package init(
    status: Int, contentType: String, headers: [(name: String, value: String)] = [],
    body: [UInt8]
  ) {
    self.status = status
    self.contentType = contentType
    self.headers = headers
    self.body = body
  }

  /// A JSON response.
  package static func json(_ status: Int, _ body: [UInt8]) -> WebResponse {
    WebResponse(status: status, contentType: "application/json", body: body)
  }
}
