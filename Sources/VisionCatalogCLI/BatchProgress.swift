import Foundation

/// Progress of a batch on standard error: a bar with counts and the time left when standard
/// error is a terminal, otherwise a plain line about every 5 % (and at the end).
struct BatchProgress {
  private let verb: String
  private let total: Int
  private let started = ContinuousClock.now
  private let onTerminal: Bool
  private var done = 0
  private var failed = 0

  /// Progress of `verb`ing `total` items.
  init(_ verb: String, total: Int) {
    self.verb = verb
    self.total = total
    onTerminal = Self.standardErrorIsTerminal()
  }

  /// Records one finished item.
  mutating func advance(failed itemFailed: Bool) {
    done += 1
    if itemFailed { failed += 1 }
    if onTerminal {
      StandardError.write("\r" + bar() + (done == total ? "\n" : ""))
    } else if done == total || done % max(1, total / 20) == 0 {
      StandardError.write("\(verb): \(done)/\(total) photos, \(failed) failed\n")
    }
  }

  /// Writes the closing line: how many photos, in what time, at what rate.
  func finish() {
    let seconds = Self.seconds(ContinuousClock.now - started)
    let rate = seconds > 0 ? Double(done) / seconds : 0
    StandardError.write(
      "\(verb): \(done) photos in \(String(format: "%.1f", seconds)) s "
        + "(\(String(format: "%.1f", rate)) photos/s), \(failed) failed\n")
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  private func bar() -> String {
    let width = 30
    let filled = total == 0 ? width : width * done / total
    let seconds = Self.seconds(ContinuousClock.now - started)
    let left = done == 0 ? 0 : seconds / Double(done) * Double(total - done)
    let eta = String(format: "%d:%02d", Int(left) / 60, Int(left) % 60)
    return "\(verb) [\(String(repeating: "#", count: filled))"
      + "\(String(repeating: " ", count: width - filled))] \(done)/\(total)"
      + (failed > 0 ? ", \(failed) failed" : "") + " ETA \(eta) "
  }

  /// Whether file descriptor 2 is a terminal, read from `/proc` (Linux) so no C call is needed.
  private static func standardErrorIsTerminal() -> Bool {
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2")
    else { return false }
    return target.hasPrefix("/dev/pts/") || target.hasPrefix("/dev/tty")
  }
}
