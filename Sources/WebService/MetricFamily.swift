import Foundation

/// One metric in Prometheus's text format: name, help, type and samples.
package struct MetricFamily: Sendable {
  /// A metric's type.
  package enum Kind: String, Sendable {
    case counter, gauge, histogram
  }

  /// The metric's name, such as `visioncatalog_queue_depth`.
  package var name: String
  /// One line of help.
  package var help: String
  /// Counter, gauge or histogram.
  package var kind: Kind
  /// The samples: label pairs (in order) and value; a histogram's samples carry their own
  /// `_bucket`, `_sum` and `_count` suffixes in `suffix`.
  package var samples: [(suffix: String, labels: [(String, String)], value: Double)]

  /// A metric.
  package init(
    name: String, help: String, kind: Kind,
    samples: [(suffix: String, labels: [(String, String)], value: Double)]
  ) {
    self.name = name
    self.help = help
    self.kind = kind
    self.samples = samples
  }

  /// A metric with one unlabelled sample.
  package static func single(_ name: String, _ help: String, _ kind: Kind, _ value: Double)
    -> MetricFamily
  {
    MetricFamily(name: name, help: help, kind: kind, samples: [("", [], value)])
  }

  /// The `# HELP`, `# TYPE` and sample lines.
  package var text: String {
    var lines = ["# HELP \(name) \(help)", "# TYPE \(name) \(kind.rawValue)"]
    for sample in samples {
      let labels =
        sample.labels.isEmpty
        ? ""
        : "{" + sample.labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",")
          + "}"
      lines.append("\(name)\(sample.suffix)\(labels) \(Self.format(sample.value))")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }

  private static func format(_ value: Double) -> String {
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}
