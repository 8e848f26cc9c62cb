import Foundation

/// Requests by route and status, and a latency histogram by route, rendered in Prometheus's
/// text format with whatever gauges the service adds.
///
/// Routes are a fixed set the service names (unknown paths count as one route), so the number
/// of series stays bounded.
package final class ServiceMetrics: @unchecked Sendable {
  // Safety of @unchecked Sendable: every `var` is read and written under `lock`.
  private let lock = NSLock()
  private var counts: [Key: Int] = [:]
  private var histograms: [String: Histogram] = [:]
  private let prefix: String

  /// The latency histogram's upper bounds, in seconds.
  package static let bounds: [Double] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
  ]

  private struct Key: Hashable {
    var route: String
    var status: Int
  }

  private struct Histogram {
    var buckets = [Int](repeating: 0, count: ServiceMetrics.bounds.count)
    var sum = 0.0
    var count = 0
  }

  /// Metrics whose names start with `prefix` (such as `visioncatalog`).
  package init(prefix: String) {
    self.prefix = prefix
  }

  /// Counts one answered request.
  package func record(route: String, status: Int, seconds: Double) {
    lock.withLock {
      counts[Key(route: route, status: status), default: 0] += 1
      var histogram = histograms[route] ?? Histogram()
      if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) {
        histogram.buckets[index] += 1
      }
      histogram.sum += seconds
      histogram.count += 1
      histograms[route] = histogram
    }
  }

  /// How many requests were answered with `status` (any route).
  package func count(status: Int) -> Int {
    lock.withLock { counts.filter { $0.key.status == status }.values.reduce(0, +) }
  }

  /// The text `GET /metrics` answers: the request counts and latencies, then `extra`.
  package func render(extra: [MetricFamily]) -> String {
    let (counts, histograms) = lock.withLock { (self.counts, self.histograms) }
    let requests = MetricFamily(
      name: "\(prefix)_http_requests_total", help: "Requests answered, by route and status.",
      kind: .counter,
      samples: counts.sorted { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }
        .map {
          ("", [("route", $0.key.route), ("status", String($0.key.status))], Double($0.value))
        }
    )
    var latency = MetricFamily(
      name: "\(prefix)_http_request_duration_seconds",
      help: "Time from a request read whole to its answer, by route.", kind: .histogram,
      samples: [])
    for (route, histogram) in histograms.sorted(by: { $0.key < $1.key }) {
      var cumulative = 0
      for (bound, count) in zip(Self.bounds, histogram.buckets) {
        cumulative += count
        latency.samples.append(
          ("_bucket", [("route", route), ("le", String(bound))], Double(cumulative)))
      }
      latency.samples.append(
        ("_bucket", [("route", route), ("le", "+Inf")], Double(histogram.count)))
      latency.samples.append(("_sum", [("route", route)], histogram.sum))
      latency.samples.append(("_count", [("route", route)], Double(histogram.count)))
    }
    return ([requests, latency] + extra).map(\.text).joined()
  }
}
