import Foundation

/// The bounds of the process-wide ``ComputeExecutor``: how many photos are worked on at once, how
/// much memory their decoding may take, how many callers may wait, and how concurrent photos for
/// one model are batched.
///
/// The defaults suit a server on a machine of its own: one worker per active core, a quarter of
/// the physical memory (at most 1 GiB) for decoded photos, callers waiting without limit, and
/// dynamic batching of up to the model's batch size within 5 ms.
///
/// ```swift
/// var limits = ComputeExecutor.shared.limits
/// limits.maximumQueuedCount = 256   // the 257th waiting caller gets .overloaded at once
/// ComputeExecutor.shared.limits = limits
/// ```
public struct ComputeLimits: Sendable, Hashable {
  /// The worker threads that decode, prepare and run models; at least 1.
  ///
  /// One network call may also use the worker pool of the kernels when it runs alone.
  public var workerCount: Int
  /// The most bytes that decoded photos in flight may take, as estimated from each photo's
  /// header before it is decoded; a photo larger than the whole budget still runs, alone.
  public var memoryBudget: Int
  /// How many callers may wait for a worker; `nil` (the default) lets every caller wait, a
  /// number makes the caller beyond it fail at once with ``ClassificationError/Code/overloaded``.
  public var maximumQueuedCount: Int?
  /// How long a prepared photo may wait for others on the same model before its batch runs
  /// anyway; `.zero` turns dynamic batching off.
  ///
  /// A batch runs as soon as it holds the model's batch size, or when no other photo for the
  /// model is being prepared, so a lone caller never waits for the window.
  public var batchingWindow: Duration

  /// Creates limits.
  ///
  /// - Parameters:
  ///   - workerCount: The worker threads; `nil` means one per active core.
  ///   - memoryBudget: The bytes decoded photos in flight may take; `nil` means a quarter of the
  ///     physical memory, at most 1 GiB.
  ///   - maximumQueuedCount: How many callers may wait; `nil` for no limit.
  ///   - batchingWindow: How long a photo may wait for a batch; 5 ms by default.
  public init(
    workerCount: Int? = nil, memoryBudget: Int? = nil, maximumQueuedCount: Int? = nil,
    batchingWindow: Duration = .milliseconds(5)
  ) {
    self.workerCount = max(1, workerCount ?? ProcessInfo.processInfo.activeProcessorCount)
    let quarter = Int(clamping: ProcessInfo.processInfo.physicalMemory / 4)
    self.memoryBudget = max(1, memoryBudget ?? min(quarter, 1 << 30))
    self.maximumQueuedCount = maximumQueuedCount.map { max(0, $0) }
    self.batchingWindow = max(.zero, batchingWindow)
  }

  /// One worker per active core, a quarter of the memory (at most 1 GiB), no queue limit, 5 ms
  /// batching window.
  public static var `default`: ComputeLimits { ComputeLimits() }
}
