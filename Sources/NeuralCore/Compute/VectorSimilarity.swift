import CNative

/// Exact similarity search over stored vectors: encoding them compactly, scoring a query
/// against all of them with the active kernel set's C kernels, and keeping the best.
///
/// Stored vectors are rows of `dimensions` values, as half floats (2 bytes a value, about 3
/// significant digits: scores within 1e-3 of float) or as int8 with one scale per row (1 byte a
/// value, scores within about 1 %). A score is the dot product of the query with a row, which
/// is the cosine similarity when both are L2-normalized.
package enum VectorSimilarity {
  /// How stored vectors are encoded.
  package enum Encoding: UInt8, Sendable, CaseIterable {
    /// IEEE half floats (binary16).
    case half = 1
    /// Signed bytes times one scale per row (the row's largest magnitude / 127).
    case int8 = 2

    /// Bytes one value takes.
    package var bytesPerValue: Int { self == .half ? 2 : 1 }
  }

  /// Rows of encoded vectors in memory the caller keeps alive (a mapped index file).
  package struct Rows: @unchecked Sendable {
    // Safety (@unchecked): the pointers address read-only memory the owner keeps mapped for as
    // long as it hands out this value; nothing writes through them.

    /// The first row.
    package let base: UnsafeRawPointer
    /// How many rows there are.
    package let count: Int
    /// Values in one row.
    package let dimensions: Int
    /// Values from one row to the next (at least `dimensions`).
    package let stride: Int
    /// How the values are stored.
    package let encoding: Encoding
    /// One scale per row for ``Encoding/int8``, else `nil`.
    package let scales: UnsafePointer<Float>?

    /// Describes rows; `scales` is required for int8 rows.
    package init(
      base: UnsafeRawPointer, count: Int, dimensions: Int, stride: Int, encoding: Encoding,
      scales: UnsafePointer<Float>? = nil
    ) {
      self.base = base
      self.count = count
      self.dimensions = dimensions
      self.stride = stride
      self.encoding = encoding
      self.scales = scales
    }
  }

  /// One row a search kept: its position and its score.
  package struct Hit: Sendable, Equatable {
    /// The row.
    package let row: Int
    /// Its dot product with the query.
    package let score: Float
  }

  /// `values` divided by their L2 norm (summed in Double), or nil when they are empty, all zero
  /// or not finite.
  package static func normalized(_ values: [Float]) -> [Float]? {
    var sum: Double = 0
    for value in values {
      sum += Double(value) * Double(value)
    }
    guard sum.isFinite, sum > 0 else { return nil }
    let scale = Float(1 / sum.squareRoot())
    return values.map { $0 * scale }
  }

  /// `values` as half floats (round to nearest even; beyond ±65504: infinity).
  package static func halfBits(of values: [Float]) -> [UInt16] {
    halfBits(of: values, kernels: .active)
  }

  static func halfBits(of values: [Float], kernels set: KernelSet) -> [UInt16] {
    let kernels = set.native
    return [UInt16](unsafeUninitializedCapacity: values.count) { buffer, initialized in
      values.withUnsafeBufferPointer { source in
        if let input = source.baseAddress, let output = buffer.baseAddress {
          kernels.toHalf(input, Int64(source.count), output)
        }
      }
      initialized = values.count
    }
  }

  /// `values` as int8 with one scale: each value is about `byte * scale`, with `scale` the
  /// largest magnitude / 127 (1 for a vector of zeros; non-finite values count as zero).
  package static func int8Row(of values: [Float]) -> (bytes: [Int8], scale: Float) {
    int8Row(of: values, kernels: .active)
  }

  static func int8Row(of values: [Float], kernels set: KernelSet) -> (bytes: [Int8], scale: Float) {
    let largest = values.reduce(Float(0)) { $1.isFinite ? max($0, abs($1)) : $0 }
    let scale = largest > 0 ? largest / 127 : 1
    let kernels = set.native
    let bytes = [Int8](unsafeUninitializedCapacity: values.count) { buffer, initialized in
      values.withUnsafeBufferPointer { source in
        if let input = source.baseAddress, let output = buffer.baseAddress {
          kernels.toInt8(input, Int64(source.count), 1 / scale, output)
        }
      }
      initialized = values.count
    }
    return (bytes, scale)
  }

  /// The dot product of `query` with every row, in row order.
  ///
  /// - Parameters:
  ///   - query: `rows.dimensions` values.
  ///   - rows: The stored vectors.
  ///   - threads: Threads the scan may use (pieces of at least 16K rows each).
  /// - Returns: One score per row; empty when `query` has another length or the stride is
  ///   shorter than a row.
  package static func scores(of query: [Float], in rows: Rows, threads: Int = 1) -> [Float] {
    scores(of: query, in: rows, threads: threads, kernels: .active)
  }

  static func scores(of query: [Float], in rows: Rows, threads: Int, kernels set: KernelSet)
    -> [Float]
  {
    guard query.count == rows.dimensions, rows.count > 0, rows.stride >= rows.dimensions else {
      return []
    }
    let kernels = set.native
    let pieceRows = max(16_384, (rows.count + 4 * threads - 1) / max(4 * threads, 1))
    let pieces = (rows.count + pieceRows - 1) / pieceRows
    return [Float](unsafeUninitializedCapacity: rows.count) { buffer, initialized in
      guard let output = buffer.baseAddress else { return }
      nonisolated(unsafe) let target = output
      query.withUnsafeBufferPointer { queryBuffer in
        guard let queryValues = queryBuffer.baseAddress else { return }
        nonisolated(unsafe) let values = queryValues
        Parallel.forEach(pieces, threads: pieces > 1 ? threads : 1) { piece in
          let first = piece * pieceRows
          score(
            values, rows, first: first, count: min(pieceRows, rows.count - first),
            kernels: kernels, into: target + first)
        }
      }
      initialized = rows.count
    }
  }

  /// Scores rows `first..<first + count` into `output`.
  private static func score(
    _ query: UnsafePointer<Float>, _ rows: Rows, first: Int, count: Int, kernels: NativeKernels,
    into output: UnsafeMutablePointer<Float>
  ) {
    let offset = first * rows.stride * rows.encoding.bytesPerValue
    switch rows.encoding {
    case .half:
      let start = (rows.base + offset).assumingMemoryBound(to: UInt16.self)
      kernels.dotHalf(
        query, start, Int64(count), Int64(rows.dimensions), Int64(rows.stride), output)
    case .int8:
      guard let scales = rows.scales else {
        output.initialize(repeating: .nan, count: count)
        return
      }
      let start = (rows.base + offset).assumingMemoryBound(to: Int8.self)
      kernels.dotInt8(
        query, start, Int64(count), Int64(rows.dimensions), Int64(rows.stride), scales + first,
        output)
    }
  }

  /// The `k` highest scores, best first (equal scores: the lower row first); NaN scores and
  /// rows whose `allowed` entry is false are never kept (an `allowed` list of another length
  /// keeps none).
  package static func best(_ k: Int, of scores: [Float], allowed: [Bool]? = nil) -> [Hit] {
    let wanted = min(max(k, 0), scores.count)
    guard wanted > 0, allowed == nil || allowed?.count == scores.count else { return [] }
    var rows = [Int64](repeating: 0, count: wanted)
    var values = [Float](repeating: 0, count: wanted)
    let mask = allowed.map { flags in flags.map { UInt8($0 ? 1 : 0) } }
    let kept = scores.withUnsafeBufferPointer { scoreBuffer in
      withOptionalBytes(mask) { maskPointer in
        cnk_top_k(
          scoreBuffer.baseAddress, Int64(scoreBuffer.count), maskPointer, Int64(wanted), &rows,
          &values)
      }
    }
    return (0..<Int(kept)).map { Hit(row: Int(rows[$0]), score: values[$0]) }
  }

  private static func withOptionalBytes<Result>(
    _ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> Result
  ) -> Result {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress) }
  }
}
