/// What the ``ComputeExecutor`` holds now and has done so far, for a server's metrics.
package struct ComputeStatistics: Sendable, Hashable {
  /// The worker threads running.
  package var workerCount: Int
  /// Callers waiting for a worker.
  package var queuedCount: Int
  /// Work items running on workers.
  package var runningCount: Int
  /// Prepared photos waiting to be batched.
  package var batchingCount: Int
  /// The bytes of decoding now reserved against ``ComputeLimits/memoryBudget``.
  package var reservedBytes: Int
  /// The most work items that ran at once.
  package var peakRunningCount: Int
  /// The most bytes of decoding reserved at once.
  package var peakReservedBytes: Int
  /// Callers served, successfully or not.
  package var completedCount: Int
  /// Callers refused with ``ClassificationError/Code/overloaded``.
  package var overloadedCount: Int
  /// Callers whose task was cancelled while their work waited.
  package var cancelledCount: Int
  /// Network calls made for batched photos.
  package var batchCount: Int
  /// Photos those calls classified.
  package var batchedPhotoCount: Int
  /// How many of those calls ran each number of photos.
  package var batchSizes: [Int: Int] = [:]
}
