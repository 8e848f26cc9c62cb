import VisionCatalog

/// Runs a batch's items a bounded number at a time and hands their results on in the items'
/// order: reading and decoding the next photos overlaps the network, while memory stays that of
/// `window` photos however long the batch is.
enum OrderedPipeline {
  /// How many photos a batch job keeps in flight for `model`: enough to keep every worker busy
  /// and to fill a batch.
  static func window(for model: NetworkClassifier) -> Int {
    ComputeExecutor.shared.limits.workerCount * 2 + model.maximumBatchSize
  }

  /// Runs `work` for items `0..<count`, at most `window` at once, and calls `handle` with each
  /// result in item order; stops at the first error `handle` throws.
  ///
  /// - Parameters:
  ///   - count: How many items.
  ///   - window: The most items in flight.
  ///   - work: One item's work, by index.
  ///   - handle: Takes the results in order.
  /// - Throws: The first error `handle` threw.
  static func run<Output: Sendable>(
    count: Int, window: Int, _ work: @escaping @Sendable (Int) async -> Output,
    handle: (Int, Output) throws(CLIError) -> Void
  ) async throws(CLIError) {
    var failure: CLIError?
    await withTaskGroup(of: (Int, Output).self) { group in
      var submitted = 0
      func submitNext() {
        guard submitted < count else { return }
        let index = submitted
        submitted += 1
        group.addTask { (index, await work(index)) }
      }
      while submitted < min(max(1, window), count) { submitNext() }
      var finished: [Int: Output] = [:]
      var handled = 0
      for await (index, output) in group {
        finished[index] = output
        while let ready = finished.removeValue(forKey: handled) {
          do throws(CLIError) {
            try handle(handled, ready)
          } catch {
            failure = error
            group.cancelAll()
            return
          }
          handled += 1
        }
        submitNext()
      }
    }
    if let failure { throw failure }
  }

  /// Runs a batch command over `paths`, at most `window` photos at once, printing each photo's
  /// JSON line in the order given, with progress on standard error.
  ///
  /// - Parameters:
  ///   - paths: The photos.
  ///   - command: The command's name, for the progress line.
  ///   - window: The most photos in flight.
  ///   - failure: What a failed photo could not be, such as `classified`.
  ///   - line: One photo's line.
  /// - Throws: ``CLIError`` when a line cannot be printed, or at the end when any photo failed.
  static func printLines<Result: Encodable & Sendable>(
    _ paths: [String], command: String, window: Int, failure: String,
    _ line: @escaping @Sendable (String) async -> JSONShapes.BatchLine<Result>
  ) async throws(CLIError) {
    var progress = BatchProgress(command, total: paths.count)
    var failures = 0
    try await run(count: paths.count, window: window) {
      await line(paths[$0])
    } handle: { (_, line) throws(CLIError) in
      if line.error != nil { failures += 1 }
      try JSONOutput.print(line)
      progress.advance(failed: line.error != nil)
    }
    progress.finish()
    if failures > 0 {
      throw CLIError.failure("\(failures) of \(paths.count) photos could not be \(failure)")
    }
  }
}
