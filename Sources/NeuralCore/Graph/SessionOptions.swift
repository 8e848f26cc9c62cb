import Foundation

/// Settings of an ``InferenceSession``.
public struct SessionOptions: Sendable, Hashable {
  /// The number of threads one `run` may use; at least 1.
  public var threadCount: Int

  /// Creates options.
  ///
  /// - Parameter threadCount: The number of threads one run may use; `nil` means the number of
  ///   active processors. Values below 1 count as 1.
  public init(threadCount: Int? = nil) {
    self.threadCount = max(1, threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
  }
}
