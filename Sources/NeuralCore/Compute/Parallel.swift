/// Runs independent work items on a bounded number of threads.
package enum Parallel {
  /// `transform(i)` for every index in `0..<count`, in order, computed on up to `threads`
  /// threads as ``forEach(_:threads:_:)`` shares them.
  package static func map<Value>(_ count: Int, threads: Int, _ transform: (Int) -> Value)
    -> [Value]
  {
    var results = [Value?](repeating: nil, count: count)
    results.withUnsafeMutableBufferPointer { buffer in
      // Each index writes its own slot.
      nonisolated(unsafe) let slots = buffer
      forEach(count, threads: threads) { slots[$0] = transform($0) }
    }
    return results.compactMap { $0 }
  }

  /// Calls `body` once for every index in `0..<count`, on up to `threads` threads.
  ///
  /// The calling thread works too, and helpers from ``WorkerPool`` join it. Every thread takes
  /// the next index from a shared counter rather than owning a fixed slice, so a thread on a
  /// core that another process keeps busy simply takes fewer items and the others finish the
  /// rest instead of waiting for it.
  static func forEach(_ count: Int, threads: Int, _ body: (Int) -> Void) {
    guard count > 0 else { return }
    let workers = min(max(threads, 1), count)
    if workers == 1 {
      for index in 0..<count { body(index) }
      return
    }
    withoutActuallyEscaping(body) { escapable in
      // The job drops the body before this call returns (WorkerPool.Job.finish), so it never
      // outlives the call; the work items touch disjoint data.
      nonisolated(unsafe) let work = escapable
      let job = WorkerPool.Job(count: count) { work($0) }
      WorkerPool.shared.post(job, helpers: workers - 1)
      job.run(work)
      job.finish()
      WorkerPool.shared.withdraw(job)
    }
  }

  /// Calls `body(first, count)` for pieces of `rows` rows of `length` values each, on up to
  /// `threads` threads when there are at least 64K values (fewer cost more to share than to
  /// compute), else once on the calling thread.
  static func forEachRows(
    _ rows: Int, length: Int, threads: Int, _ body: (_ first: Int, _ count: Int) -> Void
  ) {
    let (size, pieces) = pieces(of: rows, threads: rows * length >= 65_536 ? threads : 1)
    forEach(pieces, threads: threads) { piece in
      let first = piece * size
      body(first, min(size, rows - first))
    }
  }

  /// How to cut `count` rows (or tiles) of each of `groups` independent groups into work items:
  /// about four items per thread in all, one whole piece per group on one thread.
  ///
  /// - Returns: Rows per piece, and pieces per group (none for no rows); the last piece may be
  ///   shorter, none is empty.
  static func pieces(of count: Int, groups: Int = 1, threads: Int) -> (size: Int, count: Int) {
    guard count > 0 else { return (1, 0) }
    let groups = max(groups, 1)
    let wanted = threads > 1 ? min(count, max(1, (4 * threads + groups - 1) / groups)) : 1
    let size = (count + wanted - 1) / wanted
    return (size, (count + size - 1) / size)
  }
}
