/// What the ``ComputeExecutor`` holds now and has done so far, for a server's metrics.
public struct ComputeStatistics: Sendable, Hashable {
  /// The worker threads running.
  public var workerCount: Int
  /// Callers waiting for a worker.
  public var queuedCount: Int
  /// Work items running on workers.
  public var runningCount: Int
  /// Prepared photos waiting to be batched.
  public var batchingCount: Int
  /// The bytes of decoding now reserved against ``ComputeLimits/memoryBudget``.
  public var reservedBytes: Int
  /// The most work items that ran at once.
  public var peakRunningCount: Int
  /// The most bytes of decoding reserved at once.
  public var peakReservedBytes: Int
  /// Callers served, successfully or not.
  public var completedCount: Int
  /// Callers refused with ``ClassificationError/Code/overloaded``.
  public var overloadedCount: Int
  /// Callers whose task was cancelled while their work waited.
  public var cancelledCount: Int
  /// Network calls made for batched photos.
  public var batchCount: Int
  /// Photos those calls classified.
  public var batchedPhotoCount: Int
}
