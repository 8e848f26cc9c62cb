/// The service's routes, and the label each request counts under in the metrics.
struct ServiceRoute: Sendable {
  /// A route the service answers.
  enum Known: String, Sendable, CaseIterable {
    case classify = "/v1/classify"
    case find = "/v1/find"
    case barcodes = "/v1/barcodes"
    case similar = "/v1/similar"
    case categories = "/v1/categories"
    case health = "/healthz"
    case ready = "/readyz"
    case metrics = "/metrics"
    case page = "/"

    /// The methods the route takes (`HEAD` answers as `GET` does, without the body).
    var methods: [String] {
      switch self {
      case .classify, .find, .barcodes, .similar: ["POST"]
      default: ["GET", "HEAD"]
      }
    }
  }

  /// The route, or `nil` for a path the service does not answer.
  let known: Known?

  /// The route of a request's path; `/index.html` is the page.
  init(path: String) {
    known = Known(rawValue: path == "/index.html" ? "/" : path)
  }

  /// The metrics label: the route's path, or `other`, so that unknown paths add no series.
  var label: String { known?.rawValue ?? "other" }
}
