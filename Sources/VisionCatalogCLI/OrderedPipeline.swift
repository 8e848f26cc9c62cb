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
}
