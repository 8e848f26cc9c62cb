/// One named measurement, in the shape of package-benchmark: `Module.operation.input`.
struct Benchmark: Sendable {
  /// The name, such as `ImagePipeline.decodeJPEG.12MP`.
  let name: String
  /// How many items one run of `body` handles; the runner reports the time per item (a run of
  /// 64 photos reports milliseconds per photo, so photos per second is 1000 / ms).
  var itemsPerRun = 1
  /// The work to time once; it hands its result to ``blackHole(_:)``.
  let body: @Sendable () throws -> Void
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
