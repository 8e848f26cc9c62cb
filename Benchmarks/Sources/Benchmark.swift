/// One named measurement, in the shape of package-benchmark: `Module.operation.input`.
struct Benchmark: Sendable {
  /// The name, such as `ImagePipeline.decodeJPEG.12MP`.
  let name: String
  /// The work to time once; it hands its result to ``blackHole(_:)``.
  let body: @Sendable () throws -> Void
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
