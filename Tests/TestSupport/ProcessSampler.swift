import Foundation
import Synchronization

/// Samples the process's thread count and resident memory from `/proc/self/status` every few
/// milliseconds on a thread of its own, for tests that bound them under load.
public final class ProcessSampler: Sendable {
  /// The highest values seen while sampling.
  public struct Peaks: Sendable {
    /// The most threads the process had at once.
    public var threads = 0
    /// The largest resident set, in mebibytes.
    public var residentMebibytes = 0.0
  }

  private let peaks = Mutex(Peaks())
  private let running = Atomic<Bool>(true)
  private let stopped = DispatchSemaphore(value: 0)

  /// Starts sampling.
  public init() {
    let thread = Thread { [self] in
      while running.load(ordering: .acquiring) {
        sample()
        Thread.sleep(forTimeInterval: 0.002)
      }
      stopped.signal()
    }
    thread.start()
  }

  /// Stops sampling and returns the peaks.
  public func stop() -> Peaks {
    running.store(false, ordering: .releasing)
    stopped.wait()
    sample()
    return peaks.withLock { $0 }
  }

  private func sample() {
    let status = Self.status()
    peaks.withLock {
      $0.threads = max($0.threads, Int(status["Threads"] ?? 0))
      $0.residentMebibytes = max($0.residentMebibytes, (status["VmRSS"] ?? 0) / 1024)
    }
  }

  /// The numeric fields of `/proc/self/status` (memory in KiB), such as `Threads`, `VmRSS` and
  /// `VmHWM`; empty where the file does not exist.
  public static func status() -> [String: Double] {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return [:]
    }
    var fields: [String: Double] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2,
        let number = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first
          .flatMap({ Double($0) })
      else { continue }
      fields[String(parts[0])] = number
    }
    return fields
  }
}
