import CNative

/// Single-precision matrix multiplication `C[m, n] = sum over p of A[m, p] * B[p, n]`, row-major.
///
/// The fast path packs A into panels of `rowTile` rows once (weights are packed at load time)
/// and packs B per column tile into panels of `columnTile` columns, so the micro-kernel reads
/// both operands sequentially. B is packed by a caller-supplied closure, which lets convolutions
/// form their im2col columns directly in the packed tile instead of in a full-size matrix. The
/// tile sizes and the micro-kernel come from a ``KernelSet``; packed A must be made for the same
/// set that multiplies it.
enum GEMM {
  /// What happens to each block of C after its sums are formed.
  struct Epilogue {
    /// One value per row of C added to every column, or `nil`.
    var bias: UnsafePointer<Float>?
    /// Adds the sums to the existing contents of C instead of overwriting them.
    var accumulates: Bool
    /// Applied after the bias and accumulation.
    var activation: Activation
    /// One value per column of C added to every row (a linear layer's bias), or `nil`.
    var columnBias: UnsafePointer<Float>? = nil
  }

  /// Fills a packed B tile: columns `start..<start + width` of B, as panels of
  /// `columnTile` columns, each panel `k` rows of `columnTile` values, zero-padded.
  typealias PackB = (_ start: Int, _ width: Int, _ destination: UnsafeMutablePointer<Float>) -> Void

  /// The number of floats a packed A of `m` rows and `k` columns occupies.
  static func packedSize(rows m: Int, depth k: Int, kernels: KernelSet) -> Int {
    let tile = kernels.rowTile
    return (m + tile - 1) / tile * tile * k
  }

  /// Packs A (element `(i, p)` at `a[i * rowStride + p * columnStride]`) into row panels, scaled.
  @_optimize(speed)
  static func packA(
    rows m: Int, depth k: Int, _ a: UnsafePointer<Float>, rowStride: Int, columnStride: Int,
    scale: Float = 1, kernels: KernelSet, into packed: UnsafeMutablePointer<Float>
  ) {
    let rowTile = kernels.rowTile
    let panels = (m + rowTile - 1) / rowTile
    for panel in 0..<panels {
      let base = packed + panel * rowTile * k
      for p in 0..<k {
        for r in 0..<rowTile {
          let row = panel * rowTile + r
          base[p * rowTile + r] =
            row < m ? a[row * rowStride + p * columnStride] * scale : 0
        }
      }
    }
  }

  /// Packs columns of a strided B (element `(p, j)` at `b[p * rowStride + j * columnStride]`).
  @_optimize(speed)
  static func packB(
    depth k: Int, _ b: UnsafePointer<Float>, rowStride: Int, columnStride: Int,
    start: Int, width: Int, columnTile: Int, into destination: UnsafeMutablePointer<Float>
  ) {
    var panelStart = 0
    var panel = destination
    while panelStart < width {
      let columns = min(columnTile, width - panelStart)
      let first = start + panelStart
      if columnStride == 1 {
        for p in 0..<k {
          let target = panel + p * columnTile
          target.update(from: b + p * rowStride + first, count: columns)
          (target + columns).update(repeating: 0, count: columnTile - columns)
        }
      } else {
        for p in 0..<k {
          for j in 0..<columnTile {
            panel[p * columnTile + j] =
              j < columns ? b[p * rowStride + (first + j) * columnStride] : 0
          }
        }
      }
      panel += k * columnTile
      panelStart += columnTile
    }
  }

  /// Columns per B tile so that a packed tile stays within a few hundred kilobytes.
  static func tileWidth(depth k: Int, columns n: Int, columnTile: Int) -> Int {
    let fit = max(columnTile, (262_144 / max(k, 1)) / columnTile * columnTile)
    let width = min(1024, fit)
    return min(width, (n + columnTile - 1) / columnTile * columnTile)
  }

  /// Computes `C = epilogue(packedA × B)` for an `m × n` C with leading dimension `ldc`.
  ///
  /// When B is a plain row-major matrix (`directB`, rows `directRowStride` apart), the kernels
  /// read its whole column panels in place and pack only a last partial panel.
  ///
  /// With `prepackedB` (B packed once by ``packB(depth:_:rowStride:columnStride:start:width:columnTile:into:)``
  /// over all its columns), nothing is packed per call.
  static func multiply(
    rows m: Int, columns n: Int, depth k: Int, packedA: UnsafePointer<Float>,
    packB: PackB, directB: UnsafePointer<Float>? = nil, directRowStride: Int = 0,
    prepackedB: UnsafePointer<Float>? = nil,
    c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue, threads: Int,
    kernels: KernelSet
  ) {
    guard m > 0, n > 0 else { return }
    if k == 0 {
      applyEpilogueToZeroDepth(rows: m, columns: n, c: c, ldc: ldc, epilogue: epilogue)
      return
    }
    let native = kernels.native
    let rowTile = kernels.rowTile
    let columnTile = kernels.columnTile
    var width = tileWidth(depth: k, columns: n, columnTile: columnTile)
    if threads > 1 {
      // Split the columns first: each item packs only its own part of B. Rows are split too
      // only when there are too few column tiles, since every row group packs the tile again.
      let share = (n + 4 * threads - 1) / (4 * threads)
      width = min(width, max(columnTile, (share + columnTile - 1) / columnTile * columnTile))
    }
    let columnTiles = (n + width - 1) / width
    let panels = (m + rowTile - 1) / rowTile
    var rowGroups = 1
    if threads > 1 && columnTiles < 2 * threads {
      rowGroups = min(panels, max(1, (4 * threads + columnTiles - 1) / columnTiles))
    }
    let panelsPerGroup = (panels + rowGroups - 1) / rowGroups
    rowGroups = (panels + panelsPerGroup - 1) / panelsPerGroup
    let tileFloats = width * k
    Parallel.forEach(columnTiles * rowGroups, threads: threads) { item in
      let tile = item / rowGroups
      let group = item % rowGroups
      let start = tile * width
      let firstPanel = group * panelsPerGroup
      withUnsafeTemporaryAllocation(byteCount: (tileFloats + 16) * 4, alignment: 64) {
        scratch in
        // Safety: scratch holds one packed B tile (width * k floats, width a multiple of the
        // column tile), 64-byte aligned; it is filled as floats through a bound view.
        guard let vectors = scratch.baseAddress else { return }
        let columns = min(width, n - start)
        let tileRange = firstPanel..<min(panels, firstPanel + panelsPerGroup)
        if let prepackedB {
          computeTile(
            native, rows: m, depth: k, packedA: packedA, b: prepackedB + start * k, ldb: 0,
            panels: tileRange, columns: start..<(start + columns), c: c, ldc: ldc,
            epilogue: epilogue)
          return
        }
        let packed = vectors.bindMemory(to: Float.self, capacity: tileFloats)
        let inPlace = directB == nil ? 0 : columns / columnTile * columnTile
        if let directB, inPlace > 0 {
          computeTile(
            native, rows: m, depth: k, packedA: packedA, b: directB + start,
            ldb: directRowStride, panels: tileRange, columns: start..<(start + inPlace), c: c,
            ldc: ldc, epilogue: epilogue)
        }
        if inPlace < columns {
          packB(start + inPlace, columns - inPlace, packed)
          computeTile(
            native, rows: m, depth: k, packedA: packedA, b: packed, ldb: 0, panels: tileRange,
            columns: (start + inPlace)..<(start + columns), c: c, ldc: ldc, epilogue: epilogue)
        }
      }
    }
  }

  /// The set's micro-kernels over the given A panels and a packed B tile (`ldb` 0) or B in
  /// place; a clamp-like activation is fused into the stores, any other runs afterwards.
  private static func computeTile(
    _ native: NativeKernels, rows m: Int, depth k: Int, packedA: UnsafePointer<Float>,
    b: UnsafePointer<Float>, ldb: Int,
    panels: Range<Int>, columns: Range<Int>, c: UnsafeMutablePointer<Float>, ldc: Int,
    epilogue: Epilogue
  ) {
    let bounds = epilogue.activation.clampBounds
    var fused = cnk_epilogue(
      bias: epilogue.bias, accumulate: epilogue.accumulates ? 1 : 0, residual: nil,
      clamp_min: bounds?.low ?? -.infinity, clamp_max: bounds?.high ?? .infinity,
      column_bias: epilogue.columnBias.map { $0 + columns.lowerBound })
    native.gemmTile(
      Int64(k), packedA, Int64(panels.lowerBound), Int64(panels.count), Int64(m), b, Int64(ldb),
      Int64(columns.count), c + columns.lowerBound, Int64(ldc), &fused)
    if bounds == nil {
      let rowTile = native.rowTile
      let rows = (panels.lowerBound * rowTile)..<min(m, panels.upperBound * rowTile)
      for row in rows {
        native.apply(
          epilogue.activation, to: c + row * ldc + columns.lowerBound, count: columns.count)
      }
    }
  }

  /// Computes `C (+)= alpha × A × B (+ columnBias)` for strided A (`m × k`) and B (`k × n`),
  /// packing A per call; `columnBias` holds one value per column of C.
  static func multiplyStrided(
    rows m: Int, columns n: Int, depth k: Int, a: UnsafePointer<Float>, aRowStride: Int,
    aColumnStride: Int, b: UnsafePointer<Float>, bRowStride: Int, bColumnStride: Int,
    alpha: Float, c: UnsafeMutablePointer<Float>, ldc: Int, accumulates: Bool, threads: Int,
    prepackedB: [Float]? = nil, columnBias: UnsafePointer<Float>? = nil,
    kernels: KernelSet = .active
  ) {
    if m <= fewRows && bColumnStride == 1 {
      var accumulates = accumulates
      if let columnBias {
        // The matrix-vector kernel only adds into C: C starts as (or gains) the bias.
        for row in 0..<m {
          let target = c + row * ldc
          for column in 0..<n {
            target[column] = (accumulates ? target[column] : 0) + columnBias[column]
          }
        }
        accumulates = true
      }
      multiplyFewRows(
        rows: m, columns: n, depth: k, a: a, aRowStride: aRowStride,
        aColumnStride: aColumnStride, b: b, bRowStride: bRowStride, alpha: alpha, c: c,
        ldc: ldc, accumulates: accumulates, threads: threads, kernels: kernels)
      return
    }
    let size = packedSize(rows: m, depth: k, kernels: kernels)
    // The calling thread's workspace (reused across calls, so no pages are faulted in per call)
    // holds packed A while the product runs; nothing else on this thread uses it meanwhile.
    let scratch = cnk_thread_scratch(size * 4).map { $0.assumingMemoryBound(to: Float.self) }
    var fallback = [Float](repeating: 0, count: scratch == nil ? size : 0)
    let prepacked = prepackedB ?? []
    fallback.withUnsafeMutableBufferPointer { buffer in
      prepacked.withUnsafeBufferPointer { packedB in
        // Safety: the workspace or the buffer holds packedSize(rows: m, depth: k) floats, as
        // packA writes; the prepacked B, when given, holds every column panel of B.
        guard let base = scratch ?? buffer.baseAddress else { return }
        if aColumnStride == 1 {
          kernels.native.packRows(a, Int64(m), Int64(k), Int64(aRowStride), alpha, base)
        } else {
          packA(
            rows: m, depth: k, a, rowStride: aRowStride, columnStride: aColumnStride, scale: alpha,
            kernels: kernels, into: base)
        }
        multiply(
          rows: m, columns: n, depth: k, packedA: base,
          packB: { start, width, destination in
            packB(
              depth: k, b, rowStride: bRowStride, columnStride: bColumnStride, start: start,
              width: width, columnTile: kernels.columnTile, into: destination)
          }, prepackedB: prepackedB == nil ? nil : packedB.baseAddress, c: c, ldc: ldc,
          epilogue: Epilogue(
            bias: nil, accumulates: accumulates, activation: .identity, columnBias: columnBias),
          threads: threads, kernels: kernels)
      }
    }
  }

  /// All of a constant row-major B (`k × n`) packed once as the column panels
  /// ``multiply(rows:columns:depth:packedA:packB:directB:directRowStride:prepackedB:c:ldc:epilogue:threads:kernels:)``
  /// reads: `ceil(n / columnTile)` panels of `k × columnTile` floats, zero-padded.
  static func prepackB(depth k: Int, columns n: Int, _ b: [Float], kernels: KernelSet) -> [Float] {
    let tile = kernels.columnTile
    let width = (n + tile - 1) / tile * tile
    var packed = [Float](repeating: 0, count: width * k)
    b.withUnsafeBufferPointer { source in
      packed.withUnsafeMutableBufferPointer { buffer in
        // Safety: `b` holds k rows of n floats and the buffer every panel of the padded width.
        guard let from = source.baseAddress, let base = buffer.baseAddress, source.count >= k * n
        else { return }
        packB(
          depth: k, from, rowStride: n, columnStride: 1, start: 0, width: n, columnTile: tile,
          into: base)
      }
    }
    return packed
  }

  /// The most rows of A that ``multiplyFewRows`` takes: a classifier head at every batch size a
  /// classifier stacks (8), so that a photo's scores do not depend on the photos batched with it
  /// (the tiled product sums the depth in another order).
  static let fewRows = 8

  /// A matrix-vector product per row of A, for up to ``fewRows`` rows.
  ///
  /// For a classifier head at small batch: each row of B is streamed and added, scaled, into C,
  /// instead of padding A to a tile. With several rows the columns go in narrower chunks, so a
  /// chunk of B stays in cache for the next row.
  private static func multiplyFewRows(
    rows m: Int, columns n: Int, depth k: Int, a: UnsafePointer<Float>, aRowStride: Int,
    aColumnStride: Int, b: UnsafePointer<Float>, bRowStride: Int, alpha: Float,
    c: UnsafeMutablePointer<Float>, ldc: Int, accumulates: Bool, threads: Int, kernels: KernelSet
  ) {
    let chunk = m == 1 ? 512 : 128
    let native = kernels.native
    Parallel.forEach((n + chunk - 1) / chunk, threads: threads) { index in
      let start = index * chunk
      let width = min(chunk, n - start)
      for row in 0..<m {
        native.rowTimesMatrix(
          Int64(k), Int64(width), alpha, a + row * aRowStride, Int64(aColumnStride), b + start,
          Int64(bRowStride), c + row * ldc + start, accumulates ? 1 : 0)
      }
    }
  }

  private static func applyEpilogueToZeroDepth(
    rows m: Int, columns n: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue
  ) {
    for row in 0..<m {
      let target = c + row * ldc
      for j in 0..<n {
        let base = epilogue.accumulates ? target[j] : 0
        target[j] = base + (epilogue.bias?[row] ?? 0) + (epilogue.columnBias?[j] ?? 0)
      }
      epilogue.activation.apply(target, count: n)
    }
  }
}
