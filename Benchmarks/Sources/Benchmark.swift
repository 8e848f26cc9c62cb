import Synchronization

/// One named measurement, in the shape of package-benchmark: `Module.operation.input`.
struct Benchmark: Sendable {
  /// The name, such as `ImagePipeline.decodeJPEG.12MP`.
  let name: String
  /// How many items one run of `body` handles; the runner reports the time per item (a run of
  /// 64 photos reports milliseconds per photo, so photos per second is 1000 / ms).
  var itemsPerRun = 1
  /// Where `body` records the latency of each call it makes, when the case reports latency
  /// percentiles besides its time per item (rows `NAME.p50` and `NAME.p95`).
  var latencies: LatencyRecorder?
  /// The work to time once; it hands its result to ``blackHole(_:)``.
  let body: @Sendable () throws -> Void
}

/// The latencies of the calls a benchmark's runs make, in milliseconds, from any thread.
final class LatencyRecorder: Sendable {
  private let samples = Mutex<[Double]>([])

  /// Adds one call's latency.
  func record(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let milliseconds = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    samples.withLock { $0.append(milliseconds) }
  }

  /// Forgets what was recorded (the warm-up run's calls).
  func reset() {
    samples.withLock { $0.removeAll() }
  }

  /// The recorded latencies, sorted.
  var sorted: [Double] {
    samples.withLock { $0 }.sorted()
  }
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
