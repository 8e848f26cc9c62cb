import ClassifierKit
import Dispatch
import Foundation
import ImagePipeline
import Synchronization

/// Many callers at once: the async `classify` of one shared default model, called by many tasks
/// together as a server's request handlers would call it, against the same calls one at a time.
///
/// - `VisionCatalog.serving.12MP.jpeg.inflight256`: each run starts ``inFlight`` child tasks at
///   once, each awaiting `model.classify(.file(photo))` of the 12 MP JPEG, and waits for all;
///   the time per photo is the run's wall time / ``inFlight`` (photos per second is 1000 / ms).
/// - `VisionCatalog.serving.12MP.jpeg.serial`: ``serialCalls`` of the same calls, each awaited
///   before the next starts; time per photo as above.
///
/// Both also print `NAME.p50` and `NAME.p95`: the latency percentiles of the calls of the timed
/// runs, each call timed from the moment it was issued (its task added to the group) to its
/// result, so under load a call's latency includes its wait for the cores.
///
/// The model is `NetworkClassifier.efficientNetLite0()` with its default threads (every active
/// core), as a server would load it. Named like `Benchmarks/Scripts/serving_bench.py`'s rows
/// (ONNX Runtime + Pillow behind a thread pool as wide as the active cores) so they pair up.
enum ServingBenchmarks {
  /// The calls one run of the concurrent case starts together.
  static let inFlight = 256
  /// The calls one run of the serial case makes one after another.
  static let serialCalls = 32

  static func all(inputs: URL) throws -> [Benchmark] {
    do {
      _ = try DefaultModel.locateCheckpoint()
    } catch {
      FileHandle.standardError.write(
        Data("serving cases skipped: the default model is absent (\(error.message))\n".utf8))
      return []
    }
    let photo = inputs.appendingPathComponent(BenchmarkInputs.jpeg12MP)
    let model = try NetworkClassifier.efficientNetLite0()
    let concurrent = LatencyRecorder()
    let serial = LatencyRecorder()
    return [
      Benchmark(
        name: "VisionCatalog.serving.12MP.jpeg.inflight\(inFlight)", itemsPerRun: inFlight,
        latencies: concurrent
      ) {
        try waitFor {
          try await withThrowingTaskGroup(of: Void.self) { group in
            let clock = ContinuousClock()
            for _ in 0..<inFlight {
              let issued = clock.now
              group.addTask {
                blackHole(try await model.classify(.file(photo)))
                concurrent.record(issued.duration(to: clock.now))
              }
            }
            try await group.waitForAll()
          }
        }
      },
      Benchmark(
        name: "VisionCatalog.serving.12MP.jpeg.serial", itemsPerRun: serialCalls,
        latencies: serial
      ) {
        try waitFor {
          let clock = ContinuousClock()
          for _ in 0..<serialCalls {
            let issued = clock.now
            blackHole(try await model.classify(.file(photo)))
            serial.record(issued.duration(to: clock.now))
          }
        }
      },
    ]
  }

  /// Runs async work to its end from the runner's synchronous loop.
  ///
  /// The runner runs on the main thread, outside Swift's cooperative pool, so blocking it while
  /// the work runs on the pool cannot starve the work.
  private static func waitFor(_ work: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    Task {
      do {
        try await work()
      } catch {
        outcome.fail(error)
      }
      done.signal()
    }
    done.wait()
    if let error = outcome.error {
      throw error
    }
  }

  /// The error async work ended with, handed from its task to the waiting thread.
  private final class Outcome: Sendable {
    private let stored = Mutex<(any Error)?>(nil)

    func fail(_ error: any Error) {
      stored.withLock { $0 = error }
    }

    var error: (any Error)? {
      stored.withLock { $0 }
    }
  }
}
