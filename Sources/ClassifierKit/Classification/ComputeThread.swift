import Foundation

/// Runs CPU-bound work on a thread of its own and resumes the awaiting task when it is done.
///
/// A classification is tens to thousands of milliseconds of computation; run on a thread of Swift's
/// cooperative pool it would hold that thread, and with it a share of every other task's progress,
/// for the whole time (the pool has one thread per core). A dedicated thread leaves the pool free.
package enum ComputeThread {
  /// The stack of a compute thread: room for the kernels' stack buffers.
  static let stackSize = 8 << 20

  /// The thread-dictionary key that marks a compute thread.
  private static let marker = "VisionCatalog.ComputeThread"

  /// Whether the calling code runs on a compute thread.
  package static var isCurrent: Bool {
    Thread.current.threadDictionary[marker] as? Bool ?? false
  }

  /// Runs `work` on a new thread and returns its result.
  ///
  /// - Parameter work: The computation.
  /// - Returns: What `work` returned.
  /// - Throws: What `work` threw.
  package static func run<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
  ) async throws(Failure) -> Value {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
      let thread = Thread {
        Thread.current.threadDictionary[marker] = true
        continuation.resume(returning: Result { () throws(Failure) in try work() })
      }
      thread.stackSize = stackSize
      thread.start()
    }
    return try result.get()
  }
}
