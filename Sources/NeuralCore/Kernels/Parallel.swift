import Dispatch
import Synchronization

/// Runs independent work items on a bounded number of threads.
enum Parallel {
  /// Calls `body` once for every index in `0..<count`, on up to `threads` threads.
  ///
  /// Workers take the next index from a shared counter rather than owning a fixed slice, so a
  /// worker on a core that another process keeps busy simply takes fewer items and the others
  /// finish the rest instead of waiting for it.
  static func forEach(_ count: Int, threads: Int, _ body: (Int) -> Void) {
    guard count > 0 else { return }
    let workers = min(max(threads, 1), count)
    if workers == 1 {
      for index in 0..<count { body(index) }
      return
    }
    let next = Atomic<Int>(0)
    withoutActuallyEscaping(body) { escapable in
      // concurrentPerform returns only after every iteration has finished, so the closure and
      // the pointers it captures never outlive this call; the work items touch disjoint data.
      nonisolated(unsafe) let work = escapable
      DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
          let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
          if index >= count { return }
          work(index)
        }
      }
    }
  }
}
