/// Data movement kernels: transpose, concatenation and padding of row-major tensors.
enum Layout {
  /// Copies `count` blocks of `length` floats, `stride` apart in the source, one after the
  /// other into `output`.
  static func copyBlocks(
    from input: UnsafePointer<Float>, stride: Int, count: Int, length: Int,
    to output: UnsafeMutablePointer<Float>
  ) {
    guard length > 0 else { return }
    for block in 0..<count {
      (output + block * length).update(from: input + block * stride, count: length)
    }
  }

  /// Calls `body` with the flat row-major index of every element of `shape`, in order, and its
  /// offset in a tensor walked with `strides` (one per axis; 0 repeats an axis, as in
  /// broadcasting or reduction).
  static func walk(_ shape: [Int], strides: [Int], _ body: (_ index: Int, _ offset: Int) -> Void) {
    let count = shape.reduce(1, *)
    guard count > 0 else { return }
    var position = [Int](repeating: 0, count: shape.count)
    var offset = 0
    for index in 0..<count {
      body(index, offset)
      var axis = shape.count - 1
      while axis >= 0 {
        position[axis] += 1
        offset += strides[axis]
        if position[axis] < shape[axis] { break }
        offset -= strides[axis] * shape[axis]
        position[axis] = 0
        axis -= 1
      }
    }
  }

  /// Row-major element strides of a shape.
  static func strides(of shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 1, count: shape.count)
    var stride = 1
    for axis in Swift.stride(from: shape.count - 1, through: 0, by: -1) {
      strides[axis] = stride
      stride *= shape[axis]
    }
    return strides
  }

  /// Writes `input` (of `shape`) with its axes permuted: output axis `i` is input axis
  /// `permutation[i]`.
  ///
  /// Axes that stay adjacent and in order are merged first, so a permutation that keeps the
  /// innermost axes (a channel shuffle's `[N, G, C/G, H, W]` to `[N, C/G, G, H, W]`) copies
  /// whole contiguous runs.
  @_optimize(speed)
  static func transpose(
    input: UnsafePointer<Float>, shape: [Int], permutation: [Int],
    output: UnsafeMutablePointer<Float>
  ) {
    guard let count = Tensor.elementCount(of: shape), count > 0 else { return }
    let (mergedShape, mergedPermutation) = merged(shape: shape, permutation: permutation)
    let inputStrides = strides(of: mergedShape)
    let outputShape = mergedPermutation.map { mergedShape[$0] }
    let walk = mergedPermutation.map { inputStrides[$0] }
    let rank = outputShape.count
    let inner = outputShape[rank - 1]
    let innerStride = walk[rank - 1]
    var index = [Int](repeating: 0, count: rank)
    var sourceOffset = 0
    var written = 0
    while written < count {
      if innerStride == 1 {
        (output + written).update(from: input + sourceOffset, count: inner)
      } else {
        for element in 0..<inner {
          output[written + element] = input[sourceOffset + element * innerStride]
        }
      }
      written += inner
      var axis = rank - 2
      while axis >= 0 {
        index[axis] += 1
        sourceOffset += walk[axis]
        if index[axis] < outputShape[axis] { break }
        sourceOffset -= walk[axis] * outputShape[axis]
        index[axis] = 0
        axis -= 1
      }
    }
  }

  /// The shape and permutation with axes of length 1 dropped and runs of input axes that the
  /// permutation keeps adjacent and in order merged into one (at least one axis remains).
  static func merged(shape: [Int], permutation: [Int]) -> (shape: [Int], permutation: [Int]) {
    let kept = permutation.filter { shape[$0] != 1 }
    guard !kept.isEmpty else { return ([1], [0]) }
    // Runs of the output order whose input axes are consecutive.
    var runs: [[Int]] = []
    for axis in kept {
      if let last = runs.last?.last,
        axis == last + 1 || (last < axis && (last + 1..<axis).allSatisfy { shape[$0] == 1 })
      {
        runs[runs.count - 1].append(axis)
      } else {
        runs.append([axis])
      }
    }
    // Each run becomes one input axis, numbered by where it starts in the input.
    let order = runs.indices.sorted { runs[$0][0] < runs[$1][0] }
    var newAxis = [Int](repeating: 0, count: runs.count)
    for (position, run) in order.enumerated() { newAxis[run] = position }
    let newShape = order.map { runs[$0].reduce(1) { $0 * shape[$1] } }
    return (newShape, runs.indices.map { newAxis[$0] })
  }

  /// Writes the `columns x rows` transpose of the row-major `rows x columns` matrix `input`,
  /// in 32 x 32 tiles so that both sides stay in cache (a plain loop misses on every write of a
  /// large matrix).
  @_optimize(speed)
  static func transposeMatrix(
    input: UnsafePointer<Float>, rows: Int, columns: Int, output: UnsafeMutablePointer<Float>
  ) {
    let tile = 32
    for rowStart in stride(from: 0, to: rows, by: tile) {
      let rowEnd = min(rowStart + tile, rows)
      for columnStart in stride(from: 0, to: columns, by: tile) {
        let columnEnd = min(columnStart + tile, columns)
        for row in rowStart..<rowEnd {
          for column in columnStart..<columnEnd {
            output[column * rows + row] = input[row * columns + column]
          }
        }
      }
    }
  }

  /// Concatenates tensors along `axis`; `outer` is the product of the dimensions before it
  /// and `blocks[i]` is input i's element count per outer index.
  @_optimize(speed)
  static func concatenate(
    inputs: [UnsafePointer<Float>], blocks: [Int], outer: Int, output: UnsafeMutablePointer<Float>
  ) {
    let total = blocks.reduce(0, +)
    for block in 0..<outer {
      var offset = block * total
      for (input, size) in zip(inputs, blocks) {
        (output + offset).update(from: input + block * size, count: size)
        offset += size
      }
    }
  }

  /// How `pad` fills positions outside the input.
  enum PadMode: Hashable, Sendable {
    case constant(Float)
    case reflect
    case edge
  }

  /// The input coordinate a padded coordinate reads, or `nil` for a constant fill.
  @inline(__always)
  static func sourceCoordinate(_ coordinate: Int, length: Int, mode: PadMode) -> Int? {
    if coordinate >= 0 && coordinate < length { return coordinate }
    switch mode {
    case .constant:
      return nil
    case .edge:
      return coordinate < 0 ? 0 : length - 1
    case .reflect:
      guard length > 1 else { return 0 }
      let period = 2 * (length - 1)
      var folded = coordinate % period
      if folded < 0 { folded += period }
      return folded < length ? folded : period - folded
    }
  }

  /// Pads (or, with negative pads, crops) each axis by `begins[axis]` and `ends[axis]`.
  @_optimize(speed)
  static func pad(
    input: UnsafePointer<Float>, shape: [Int], begins: [Int], ends: [Int], mode: PadMode,
    output: UnsafeMutablePointer<Float>
  ) {
    let outputShape = (0..<shape.count).map { shape[$0] + begins[$0] + ends[$0] }
    guard let count = Tensor.elementCount(of: outputShape), count > 0 else { return }
    let inputStrides = strides(of: shape)
    let rank = shape.count
    let fill: Float
    if case .constant(let value) = mode { fill = value } else { fill = 0 }
    let inner = outputShape[rank - 1]
    var index = [Int](repeating: 0, count: rank - 1)
    var written = 0
    while written < count {
      var rowOffset = 0
      var rowInside = true
      for axis in 0..<(rank - 1) {
        guard
          let coordinate = sourceCoordinate(
            index[axis] - begins[axis], length: shape[axis], mode: mode)
        else {
          rowInside = false
          break
        }
        rowOffset += coordinate * inputStrides[axis]
      }
      for element in 0..<inner {
        if rowInside,
          let coordinate = sourceCoordinate(
            element - begins[rank - 1], length: shape[rank - 1], mode: mode)
        {
          output[written + element] = input[rowOffset + coordinate]
        } else {
          output[written + element] = fill
        }
      }
      written += inner
      var axis = rank - 2
      while axis >= 0 {
        index[axis] += 1
        if index[axis] < outputShape[axis] { break }
        index[axis] = 0
        axis -= 1
      }
    }
  }
}
