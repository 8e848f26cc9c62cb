import Foundation

/// The durations of repeated runs (`infer --runs`, `similar --runs`), reported on standard error
/// as `runs=R median_ms=X min_ms=Y`.
struct RunTimes {
  private var milliseconds: [Double] = []

  /// Records one run's duration.
  mutating func record(_ elapsed: Duration) {
    milliseconds.append(
      Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
  }

  /// Writes `prefix` (such as the kernel set and CPU) and the runs line to standard error.
  func report(_ prefix: String) {
    let sorted = milliseconds.sorted()
    guard let fastest = sorted.first else { return }
    StandardError.write(prefix + "\n")
    StandardError.write(
      String(
        format: "runs=%d median_ms=%.3f min_ms=%.3f\n", sorted.count, sorted[sorted.count / 2],
        fastest))
  }

  /// The CPU's model name from /proc/cpuinfo, or the architecture where it has none.
  static var processorName: String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("model name") {
      if let colon = line.firstIndex(of: ":") {
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
    }
    #if arch(arm64)
      return "aarch64"
    #else
      return "x86_64"
    #endif
  }
}
