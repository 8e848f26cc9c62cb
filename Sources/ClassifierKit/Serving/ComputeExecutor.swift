import Foundation
import ImagePipeline

/// The process-wide pool of worker threads that every asynchronous classification runs on.
///
/// A server calls `classify(_:preparation:options:)` from as many
/// tasks as it has requests; the calls are queued here and a fixed set of workers (one per core
/// by default) reads, decodes, prepares and classifies the photos. So the number of threads and
/// the memory of decoded photos stay bounded however many callers there are:
/// - a caller waits for a worker without holding a thread (its task is suspended);
/// - a photo is decoded only when its estimated decoded size fits ``ComputeLimits/memoryBudget``
///   beside the photos already in flight;
/// - with ``ComputeLimits/maximumQueuedCount`` set, a caller beyond it fails at once with
///   ``ClassificationError/Code/overloaded`` instead of waiting;
/// - cancelling the caller's task takes its work out of the queue
///   (``ClassificationError/Code/cancelled``);
/// - photos for the same `NetworkClassifier` that are prepared within
///   ``ComputeLimits/batchingWindow`` of each other run as one batch, as inference servers'
///   dynamic batchers do, and each caller gets its own result.
///
/// Synchronous calls such as `classify(_:preparation:options:)` run
/// on the calling thread and do not pass through the executor.
public final class ComputeExecutor: @unchecked Sendable {
  /// The executor every model's asynchronous calls use.
  public static let shared = ComputeExecutor()

  /// The thread-dictionary key that marks a worker thread.
  private static let workerMarker = "VisionCatalog.ComputeExecutor.worker"
  /// The thread-dictionary key holding how many threads the running item may use.
  private static let shareKey = "VisionCatalog.ComputeExecutor.share"
  /// The stack of a worker: room for the kernels' stack buffers.
  private static let stackSize = 8 << 20

  /// Guards `state`; workers sleep on it. (`@unchecked Sendable`: every access to `state` holds
  /// this lock.)
  private let condition = NSCondition()
  private var state: State

  /// How long an idle worker waits for work before it ends; a later call starts it again.
  private static let idleSeconds = 30.0

  /// An executor of its own, for tests that must not share the process-wide one.
  ///
  /// - Parameter limits: The bounds.
  init(limits: ComputeLimits = .default) {
    state = State(limits: limits)
  }

  /// The bounds the executor applies; changes take effect for work not yet started.
  ///
  /// Lowering ``ComputeLimits/workerCount`` lets the surplus workers end once idle.
  public var limits: ComputeLimits {
    get { locked { $0.limits } }
    set {
      locked { $0.limits = newValue }
      condition.broadcast()
    }
  }

  /// What the executor holds now and has done so far.
  package var statistics: ComputeStatistics {
    locked { $0.statistics }
  }

  /// Whether the calling code runs on one of the executor's workers.
  package static var isWorkerThread: Bool {
    Thread.current.threadDictionary[workerMarker] as? Bool ?? false
  }

  /// How many threads the work item on this worker may use for one network call or decode;
  /// `nil` off the executor's workers.
  ///
  /// All of the cores when the item runs alone, one when others are waiting.
  static var threadShare: Int? {
    Thread.current.threadDictionary[shareKey] as? Int
  }

  /// Runs `body` on the calling thread as if it were a worker allowed `threads` threads.
  ///
  /// - Parameters:
  ///   - threads: The share.
  ///   - body: The work.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw.
  static func withThreadShare<Value, Failure: Error>(
    _ threads: Int, _ body: () throws(Failure) -> Value
  ) throws(Failure) -> Value {
    let dictionary = Thread.current.threadDictionary
    let previous = dictionary[shareKey]
    dictionary[shareKey] = threads
    defer { dictionary[shareKey] = previous }
    return try body()
  }

  // MARK: - Submitting

  /// Runs `work` on a worker and returns what it passes to its `finish` callback.
  ///
  /// `work` receives the request's identifier and must call `finish` exactly once, now or later
  /// (a batched photo finishes when its batch has run). Cancellation of the calling task before
  /// a worker takes the work removes it and throws ``ClassificationError/Code/cancelled``.
  ///
  /// - Parameters:
  ///   - batch: The batch the work feeds, if it ends by adding a photo to one.
  ///   - work: The work, run on a worker.
  /// - Returns: The value `work` finished with.
  /// - Throws: ``ClassificationError``: `overloaded` when the queue is full, `cancelled`, or the
  ///   error `work` finished with.
  func perform<Value: Sendable>(
    feeding batch: BatchKey? = nil,
    _ work:
      @escaping @Sendable (
        _ id: UInt64, _ finish: @escaping @Sendable (Result<Value, ClassificationError>) -> Void
      ) -> Void
  ) async throws(ClassificationError) -> Value {
    let id = locked { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<Value, ClassificationError>, Never>) in
        let finish: @Sendable (Result<Value, ClassificationError>) -> Void = {
          continuation.resume(returning: $0)
        }
        let request = Request(
          id: id, feeds: batch, work: { work(id, finish) }, fail: { finish(.failure($0)) })
        if let refusal = enqueue(request) {
          finish(.failure(refusal))
        } else if Task.isCancelled {
          // The cancellation handler may have run before the request was queued.
          cancel(id)
        }
      }
    } onCancel: {
      cancel(id)
    }
    switch result {
    case .failure(let error) where error.code == .overloaded || error.code == .cancelled: break
    default: locked { $0.counters.completedCount += 1 }
    }
    return try result.get()
  }

  /// Adds a prepared photo to its model's batch; `deliver` receives its classifications and the
  /// batch's network time, or the failure.
  func addToBatch(
    _ key: BatchKey, id: UInt64, input: ModelInput, maximumSize: Int,
    run: @escaping @Sendable ([ModelInput]) throws(ClassificationError) -> [[Classification]],
    deliver: @escaping @Sendable (Result<[Classification], ClassificationError>, Duration) -> Void
  ) {
    let entry = BatchEntry(id: id, input: input, arrived: .now, deliver: deliver)
    locked { state in
      state.batches[key, default: Batch(maximumSize: max(1, maximumSize), run: run)]
        .entries.append(entry)
    }
    condition.broadcast()
  }

  /// Waits until `bytes` of decoding fit the memory budget beside what is in flight, then
  /// reserves them; a reservation larger than the budget waits until nothing else is reserved.
  ///
  /// - Parameter bytes: The estimated bytes.
  func reserve(_ bytes: Int) {
    condition.lock()
    while state.reserved > 0, state.reserved + bytes > state.limits.memoryBudget {
      condition.wait()
    }
    state.reserved += bytes
    state.counters.peakReservedBytes = max(state.counters.peakReservedBytes, state.reserved)
    condition.unlock()
  }

  /// Returns bytes reserved with ``reserve(_:)``.
  ///
  /// - Parameter bytes: The bytes reserved.
  func release(_ bytes: Int) {
    locked { $0.reserved -= bytes }
    condition.broadcast()
  }

  // MARK: - Queue

  /// Queues `request`, starting workers as needed; returns the error to fail it with instead.
  private func enqueue(_ request: Request) -> ClassificationError? {
    let refusal = locked { state -> ClassificationError? in
      // Requests that idle workers are about to take do not count as waiting.
      let idle = max(0, state.limits.workerCount - state.running)
      if let limit = state.limits.maximumQueuedCount, state.queue.count >= limit + idle {
        state.counters.overloadedCount += 1
        return ClassificationError(
          .overloaded,
          "\(state.queue.count) photos are already waiting for the \(state.limits.workerCount) "
            + "workers (ComputeLimits.maximumQueuedCount is \(limit)); try again later")
      }
      state.queue.append(request)
      if let key = request.feeds { state.feeding[key, default: 0] += 1 }
      return nil
    }
    if refusal == nil {
      startWorkers()
      condition.signal()
    }
    return refusal
  }

  /// Takes request `id` out of the queue or out of a batch and fails it as cancelled; work a
  /// worker has started is left to finish.
  private func cancel(_ id: UInt64) {
    enum Found {
      case request(Request)
      case entry(BatchEntry)
    }
    let found = locked { state -> Found? in
      if let index = state.queue.firstIndex(where: { $0.id == id }) {
        let request = state.queue.remove(at: index)
        if let key = request.feeds { state.stopFeeding(key) }
        state.counters.cancelledCount += 1
        return .request(request)
      }
      for (key, batch) in state.batches {
        guard let index = batch.entries.firstIndex(where: { $0.id == id }) else { continue }
        let entry = state.batches[key]?.entries.remove(at: index)
        if state.batches[key]?.entries.isEmpty == true { state.batches[key] = nil }
        state.counters.cancelledCount += 1
        return entry.map(Found.entry)
      }
      return nil
    }
    let error = ClassificationError(.cancelled, "the caller's task was cancelled")
    switch found {
    case .request(let request): request.fail(error)
    case .entry(let entry): entry.deliver(.failure(error), .zero)
    case nil: break
    }
    condition.broadcast()
  }

  private func startWorkers() {
    let missing = locked { state -> Int in
      let missing = max(0, state.limits.workerCount - state.workers)
      state.workers += missing
      state.counters.workerCount = state.workers
      return missing
    }
    for _ in 0..<missing {
      let thread = Thread { [self] in
        Thread.current.threadDictionary[Self.workerMarker] = true
        workerLoop()
      }
      thread.name = "VisionCatalog compute"
      thread.stackSize = Self.stackSize
      thread.start()
    }
  }

  // MARK: - Workers

  /// What a worker does next.
  private enum Item {
    case batch(Batch)
    case request(Request)
  }

  private func workerLoop() {
    condition.lock()
    while true {
      if state.workers > state.limits.workerCount {
        state.workers -= 1
        state.counters.workerCount = state.workers
        condition.unlock()
        return
      }
      let now = ContinuousClock.now
      let item: Item
      if let batch = state.takeBatch(at: now) {
        state.counters.batchCount += 1
        state.counters.batchedPhotoCount += batch.entries.count
        state.counters.batchSizes[batch.entries.count, default: 0] += 1
        item = .batch(batch)
      } else if !state.queue.isEmpty {
        item = .request(state.queue.removeFirst())
      } else {
        if let deadline = state.nextBatchDeadline() {
          let wait = now.duration(to: deadline)
          _ = condition.wait(until: Date(timeIntervalSinceNow: wait.seconds))
        } else if !condition.wait(until: Date(timeIntervalSinceNow: Self.idleSeconds)),
          state.queue.isEmpty, state.batches.isEmpty
        {
          state.workers -= 1
          state.counters.workerCount = state.workers
          condition.unlock()
          return
        }
        continue
      }
      state.running += 1
      state.counters.peakRunningCount = max(
        state.counters.peakRunningCount, state.running)
      let share = state.threadShare
      condition.unlock()

      Self.withThreadShare(share) {
        switch item {
        case .batch(let batch): run(batch)
        case .request(let request): request.work()
        }
      }

      condition.lock()
      state.running -= 1
      if case .request(let request) = item, let key = request.feeds { state.stopFeeding(key) }
      condition.broadcast()
    }
  }

  /// Runs a batch as one network call and hands each photo its own result; when the call fails,
  /// each photo is run alone, so one bad input fails only its own caller.
  private func run(_ batch: Batch) {
    let clock = ContinuousClock()
    let start = clock.now
    let outcome = Result { () throws(ClassificationError) in
      try batch.run(batch.entries.map(\.input))
    }
    let elapsed = clock.now - start
    if case .success(let results) = outcome, results.count == batch.entries.count {
      for (entry, classifications) in zip(batch.entries, results) {
        entry.deliver(.success(classifications), elapsed)
      }
      return
    }
    if batch.entries.count == 1, case .failure(let error) = outcome {
      batch.entries[0].deliver(.failure(error), elapsed)
      return
    }
    for entry in batch.entries {
      let start = clock.now
      let alone = Result { () throws(ClassificationError) in try batch.run([entry.input]) }
      let result = alone.flatMap { (results) -> Result<[Classification], ClassificationError> in
        guard let first = results.first, results.count == 1 else {
          return .failure(
            ClassificationError(.inferenceFailed, "the model returned \(results.count) results"))
        }
        return .success(first)
      }
      entry.deliver(result, clock.now - start)
    }
  }

  private func locked<Value>(_ body: (inout State) -> Value) -> Value {
    condition.lock()
    defer { condition.unlock() }
    return body(&state)
  }
}

extension Duration {
  /// The duration in seconds.
  fileprivate var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
