import CNative
import Dispatch
import Foundation
import Synchronization

/// Helper threads that pick up the items of ``Parallel/forEach(_:threads:_:)`` calls.
///
/// A network runs dozens of parallel steps of 20 to 300 microseconds each. Dispatch parks its
/// threads between them, and waking one costs tens of microseconds, which is most of a small
/// step. These helpers instead spin for a short while after each job, so the next step finds
/// them awake, and then sleep until work is posted again.
///
/// The caller of a job never waits for a helper to start: it claims items itself from the same
/// counter, and at the end waits only for items that a helper has already claimed. A helper on
/// a core that another process keeps busy therefore costs at most the item it holds.
final class WorkerPool: @unchecked Sendable {
  /// The process-wide pool.
  static let shared = WorkerPool()

  /// How long an idle helper spins before it sleeps.
  private static let spinNanoseconds: UInt64 = 300_000

  /// One `forEach` call: its items, the counters helpers share, and its body while it runs.
  ///
  /// Its mutable state is guarded by a pthread-based `NSLock`, which ThreadSanitizer follows.
  final class Job: @unchecked Sendable {
    let count: Int
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    private let lock = NSLock()
    /// The body, removed before the call returns so that a helper arriving late never runs it.
    private var body: (@Sendable (Int) -> Void)?
    /// Helpers holding the body.
    private var active = 0

    init(count: Int, body: @escaping @Sendable (Int) -> Void) {
      self.count = count
      self.body = body
    }

    /// Claims and runs items until none are left.
    func run(_ body: (Int) -> Void) {
      while true {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        if index >= count { return }
        body(index)
        done.wrappingAdd(1, ordering: .releasing)
      }
    }

    /// A helper's share: runs items if the job is still open.
    func help() {
      if runWithBody() { lock.withLock { active -= 1 } }
    }

    /// Takes the body if the job is still open and runs items with it; the body is released
    /// when this returns, before the helper counts itself out.
    @inline(never)
    private func runWithBody() -> Bool {
      let taken = lock.withLock { () -> (@Sendable (Int) -> Void)? in
        guard let body else { return nil }
        active += 1
        return body
      }
      guard let taken else { return false }
      run(taken)
      return true
    }

    /// The caller's end: waits for items helpers still hold, then closes the job and waits for
    /// helpers to let go of the body.
    func finish() {
      while done.load(ordering: .acquiring) < count { cnk_spin_pause() }
      while true {
        let idle = lock.withLock { () -> Bool in
          body = nil
          return active == 0
        }
        if idle { return }
        cnk_spin_pause()
      }
    }
  }

  /// Guards `postedJob`, `postedGeneration` and `helperCount` (pthread-based, so
  /// ThreadSanitizer follows it).
  private let lock = NSLock()
  /// The latest job and a number that changes with every post.
  private var postedJob: Job?
  private var postedGeneration = 0
  private var helperCount = 0
  /// `postedGeneration`, readable without the lock by spinning helpers.
  private let generation = Atomic<Int>(0)
  private let sleepers = Atomic<Int>(0)
  private let wake = DispatchSemaphore(value: 0)

  /// Makes `job` available to up to `helpers` helper threads, starting threads as needed.
  func post(_ job: Job, helpers: Int) {
    startHelpers(upTo: helpers)
    lock.withLock {
      postedGeneration += 1
      postedJob = job
      generation.store(postedGeneration, ordering: .releasing)
    }
    let sleeping = sleepers.exchange(0, ordering: .acquiringAndReleasing)
    for _ in 0..<sleeping { wake.signal() }
  }

  /// Clears the job slot if it still holds `job`, so an idle helper does not keep it alive.
  func withdraw(_ job: Job) {
    lock.withLock {
      if postedJob === job { postedJob = nil }
    }
  }

  private func startHelpers(upTo wanted: Int) {
    let newThreads = lock.withLock { () -> Int in
      let missing = max(0, min(wanted, 63) - helperCount)
      helperCount += missing
      return missing
    }
    for _ in 0..<newThreads {
      let thread = Thread { [self] in helperLoop() }
      thread.name = "NeuralCore worker"
      thread.start()
    }
  }

  private func helperLoop() {
    var seen = 0
    while true {
      if let job = nextJob(after: &seen) {
        job.help()
        continue
      }
      if !spin(from: seen) {
        sleepers.wrappingAdd(1, ordering: .acquiringAndReleasing)
        wake.wait()
      }
    }
  }

  /// The posted job if it is newer than `seen`.
  private func nextJob(after seen: inout Int) -> Job? {
    guard generation.load(ordering: .acquiring) != seen else { return nil }
    return lock.withLock {
      seen = postedGeneration
      return postedJob
    }
  }

  /// Spins until a newer job is posted (true) or the spin time is up (false).
  private func spin(from seen: Int) -> Bool {
    let start = DispatchTime.now().uptimeNanoseconds
    var rounds = 0
    while generation.load(ordering: .acquiring) == seen {
      cnk_spin_pause()
      rounds += 1
      if rounds & 255 == 0, DispatchTime.now().uptimeNanoseconds - start > Self.spinNanoseconds {
        return false
      }
    }
    return true
  }
}
