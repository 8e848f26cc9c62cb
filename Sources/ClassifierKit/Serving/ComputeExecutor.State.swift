import Foundation
import ImagePipeline

/// Which photos may share a network call: the same model (by identity) with the same options.
struct BatchKey: Hashable, Sendable {
  /// The model's identity, shared by its copies.
  let model: ObjectIdentifier
  /// The caller's options; photos with other options rank their scores otherwise.
  let options: ClassificationOptions
}

extension ComputeExecutor {
  /// One caller's work while it waits for a worker.
  struct Request: Sendable {
    let id: UInt64
    /// The batch its photo will join, if any: while it waits or runs, that batch may wait for it.
    let feeds: BatchKey?
    let work: @Sendable () -> Void
    let fail: @Sendable (ClassificationError) -> Void
  }

  /// A prepared photo waiting for its batch.
  struct BatchEntry: Sendable {
    let id: UInt64
    let input: ModelInput
    let arrived: ContinuousClock.Instant
    let deliver: @Sendable (Result<[Classification], ClassificationError>, Duration) -> Void
  }

  /// Prepared photos for one model and options, and how to run them.
  struct Batch: Sendable {
    let maximumSize: Int
    let run: @Sendable ([ModelInput]) throws(ClassificationError) -> [[Classification]]
    var entries: [BatchEntry] = []
  }

  /// Everything the executor's lock guards.
  struct State {
    var limits: ComputeLimits
    var queue: [Request] = []
    var batches: [BatchKey: Batch] = [:]
    /// How many queued or running requests will add a photo to each batch.
    var feeding: [BatchKey: Int] = [:]
    var workers = 0
    var running = 0
    var reserved = 0
    var nextID: UInt64 = 0
    var counters = ComputeStatistics(
      workerCount: 0, queuedCount: 0, runningCount: 0, batchingCount: 0, reservedBytes: 0,
      peakRunningCount: 0, peakReservedBytes: 0, completedCount: 0, overloadedCount: 0,
      cancelledCount: 0, batchCount: 0, batchedPhotoCount: 0)

    /// The counters with the current levels filled in.
    var statistics: ComputeStatistics {
      var statistics = counters
      statistics.queuedCount = queue.count
      statistics.runningCount = running
      statistics.batchingCount = batches.values.reduce(0) { $0 + $1.entries.count }
      statistics.reservedBytes = reserved
      return statistics
    }

    /// How many threads an item started now may use: the cores no other item holds when nothing
    /// waits, else one, so that the workers share the cores instead of oversubscribing them.
    var threadShare: Int {
      guard queue.isEmpty else { return 1 }
      return max(1, limits.workerCount - (running - 1))
    }

    /// Notes that a request feeding `key` has added its photo or failed.
    mutating func stopFeeding(_ key: BatchKey) {
      let count = (feeding[key] ?? 1) - 1
      feeding[key] = count > 0 ? count : nil
    }

    /// Whether `batch` runs now: it is full, no photo for it is on the way, or its oldest photo
    /// has waited out the window.
    private func isReady(_ key: BatchKey, _ batch: Batch, at now: ContinuousClock.Instant) -> Bool {
      guard let oldest = batch.entries.first else { return false }
      return limits.batchingWindow == .zero || batch.entries.count >= batch.maximumSize
        || feeding[key] == nil
        || now >= oldest.arrived + limits.batchingWindow
    }

    /// Takes the ready batch whose oldest photo waited longest, at most its maximum size.
    mutating func takeBatch(at now: ContinuousClock.Instant) -> Batch? {
      let ready = batches.filter { isReady($0.key, $0.value, at: now) }
      guard
        let (key, batch) = ready.min(by: {
          ($0.value.entries.first?.arrived ?? now) < ($1.value.entries.first?.arrived ?? now)
        })
      else { return nil }
      // A zero window turns batching off: each photo runs alone.
      let size = limits.batchingWindow == .zero ? 1 : batch.maximumSize
      var taken = batch
      taken.entries = Array(batch.entries.prefix(size))
      let rest = Array(batch.entries.dropFirst(size))
      batches[key]?.entries = rest
      if rest.isEmpty { batches[key] = nil }
      return taken
    }

    /// When the next waiting batch's window ends.
    func nextBatchDeadline() -> ContinuousClock.Instant? {
      batches.values.compactMap { $0.entries.first?.arrived }.min().map {
        $0 + limits.batchingWindow
      }
    }
  }
}
