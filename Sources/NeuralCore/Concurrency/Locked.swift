import Foundation

/// A value behind a lock: `Synchronization.Mutex`'s `withLock`, on a pthread mutex.
///
/// On Linux, `Mutex` hands a contended lock over through a priority-inheritance futex. The kernel
/// makes the waiter the owner, so the thread sanitizer never sees the acquire and reports the
/// guarded accesses as races. A pthread mutex (through `NSLock`) is one the sanitizer
/// intercepts, at the same cost when uncontended, so the engine's shared state stays checked.
package final class Locked<Value>: @unchecked Sendable {
  // Safety of @unchecked Sendable: `value` is read and written only inside `withLock`.
  private let lock = NSLock()
  private var value: Value

  /// A lock around `value`.
  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with the value while holding the lock.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
