import WebService

/// The web page at `/`: one HTML document with its style and script inline, and no external
/// URL, so it works offline and behind any proxy.
enum ServicePage {
  /// The document's bytes.
  static let html = Array(ServicePageHTML.text.utf8)

  /// The headers it is served with: it may load nothing but itself, talk only to this server,
  /// and show product pictures from wherever the catalog keeps them.
  static let headers: [(name: String, value: String)] = [
    (
      "Content-Security-Policy",
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        + "img-src 'self' data: blob: https: http:; connect-src 'self'; base-uri 'none'; "
        + "form-action 'none'; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
  ]

  /// The page's answer to `GET /`.
  static var response: WebResponse {
    WebResponse(
      status: 200, contentType: "text/html; charset=utf-8", headers: headers, body: html)
  }
}
