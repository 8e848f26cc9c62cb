import Foundation

/// A task executor with a thread of its own, for tests whose timing must not depend on the rest
/// of the run.
///
/// Inside the whole suite, CPU-bound tests hold Swift's cooperative threads (two on a 2-core
/// machine) for a long time, and a task waiting for a timer or a network reply resumes only when
/// one frees up. A task that prefers this executor (``run(_:)``) resumes here instead, so a
/// deadline a test measures is the library's deadline, not the time the pool was busy.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
  // Safety of @unchecked Sendable: `jobs` is touched under `condition`.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  /// One executor for the whole test run; its thread lives as long as the process.
  public static let shared = DedicatedThreadExecutor(name: "tests-dedicated")

  private init(name: String) {
    let thread = Thread { [self] in serve() }
    thread.name = name
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// Queues a job for the executor's thread.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Runs `body` in a task that prefers this executor (its child tasks too).
  public func run<Value: Sendable>(
    _ body: @Sendable () async throws -> Value
  ) async rethrows -> Value {
    try await withTaskExecutorPreference(self) { try await body() }
  }

  private func serve() {
    while true {
      condition.lock()
      while jobs.isEmpty { condition.wait() }
      let batch = jobs
      jobs.removeAll(keepingCapacity: true)
      condition.unlock()
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
  }
}
