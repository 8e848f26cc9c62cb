import Foundation

/// The thread the server's handler tasks run on, apart from Swift's shared cooperative pool.
///
/// Handlers mostly wait (for a `ComputeExecutor` worker, for the catalog), so one thread serves
/// them all; and because it is the server's own, code elsewhere in the process that blocks the
/// cooperative threads cannot keep the server from answering. The thread ends once ``finish()``
/// was called and its queue is empty.
final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
  // Safety of @unchecked Sendable: `jobs` and `finishing` are touched under `condition`.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var finishing = false

  /// Starts the thread.
  init(name: String) {
    let thread = Thread { [self] in run() }
    thread.name = name
    thread.stackSize = 1 << 20
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Lets the thread end once the jobs queued so far have run.
  func finish() {
    condition.lock()
    finishing = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty, !finishing { condition.wait() }
      let batch = jobs
      jobs.removeAll(keepingCapacity: true)
      condition.unlock()
      if batch.isEmpty { return }
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
  }
}
