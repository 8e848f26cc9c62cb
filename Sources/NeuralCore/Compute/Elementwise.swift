import Foundation

/// Binary element-wise arithmetic with NumPy broadcasting.
enum Elementwise {
  /// The arithmetic applied to each pair of elements.
  enum Operation: Hashable, Sendable {
    case add
    case subtract
    case multiply
    case divide
    /// `pow(a, b)` (ONNX `Pow`).
    case power
    /// `a` where `a >= 0`, else `a * b` (ONNX `PRelu`, `b` the slope).
    case prelu
    /// The remainder of `a / b` truncated, with `a`'s sign (ONNX `Mod` with `fmod = 1`).
    case remainder
    /// The remainder of `a / b` floored, with `b`'s sign (ONNX `Mod` with `fmod = 0`).
    case modulo
    /// The larger of `a` and `b`; NaN when either is NaN (ONNX `Max`).
    case maximum
    /// The smaller of `a` and `b`; NaN when either is NaN (ONNX `Min`).
    case minimum
    /// Comparisons and logic, with booleans held as 1 and 0 (ONNX `Equal`, `Less`, `And`, ...).
    case equal, less, greater, lessOrEqual, greaterOrEqual, and, or, xor

    /// The operation of a comparison or logical ONNX operator, or `nil` for another operator.
    static func comparison(_ operatorName: String) -> Operation? {
      switch operatorName {
      case "Equal": .equal
      case "Less": .less
      case "Greater": .greater
      case "LessOrEqual": .lessOrEqual
      case "GreaterOrEqual": .greaterOrEqual
      case "And": .and
      case "Or": .or
      case "Xor": .xor
      default: nil
      }
    }

    @inline(__always)
    func callAsFunction(_ a: Float, _ b: Float) -> Float {
      switch self {
      case .add: return a + b
      case .subtract: return a - b
      case .multiply: return a * b
      case .divide: return a / b
      case .power: return Foundation.pow(a, b)
      case .prelu: return a < 0 ? a * b : a
      case .remainder: return Foundation.fmod(a, b)
      case .modulo:
        let remainder = Foundation.fmod(a, b)
        return remainder != 0 && (remainder < 0) != (b < 0) ? remainder + b : remainder
      case .maximum: return b > a || b.isNaN ? b : a
      case .minimum: return b < a || b.isNaN ? b : a
      case .equal: return a == b ? 1 : 0
      case .less: return a < b ? 1 : 0
      case .greater: return a > b ? 1 : 0
      case .lessOrEqual: return a <= b ? 1 : 0
      case .greaterOrEqual: return a >= b ? 1 : 0
      case .and: return a != 0 && b != 0 ? 1 : 0
      case .or: return a != 0 || b != 0 ? 1 : 0
      case .xor: return (a != 0) != (b != 0) ? 1 : 0
      }
    }

    @inline(__always)
    func callAsFunction(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
      switch self {
      case .add: return a + b
      case .subtract: return a - b
      case .multiply: return a * b
      case .divide: return a / b
      case .power:
        var result = SIMD8<Float>()
        for lane in 0..<8 { result[lane] = Foundation.pow(a[lane], b[lane]) }
        return result
      case .prelu: return a.replacing(with: a * b, where: a .< 0)
      case .maximum: return a.replacing(with: b, where: (b .> a) .| (b .!= b))
      case .minimum: return a.replacing(with: b, where: (b .< a) .| (b .!= b))
      case .equal, .less, .greater, .lessOrEqual, .greaterOrEqual, .and, .or, .xor, .remainder,
        .modulo:
        var result = SIMD8<Float>()
        for lane in 0..<8 { result[lane] = self(a[lane], b[lane]) }
        return result
      }
    }
  }

  /// The broadcast shape of two shapes, or `nil` when they are incompatible.
  static func broadcastShape(_ a: [Int], _ b: [Int]) -> [Int]? {
    let rank = max(a.count, b.count)
    var result = [Int](repeating: 1, count: rank)
    for axis in 0..<rank {
      let aDimension = axis < rank - a.count ? 1 : a[axis - (rank - a.count)]
      let bDimension = axis < rank - b.count ? 1 : b[axis - (rank - b.count)]
      if aDimension == bDimension || bDimension == 1 {
        result[axis] = aDimension
      } else if aDimension == 1 {
        result[axis] = bDimension
      } else {
        return nil
      }
    }
    return result
  }

  /// Element strides of `shape` read as `output` (0 along broadcast axes).
  static func broadcastStrides(_ shape: [Int], to output: [Int]) -> [Int] {
    let offset = output.count - shape.count
    var strides = [Int](repeating: 0, count: output.count)
    var stride = 1
    for axis in Swift.stride(from: shape.count - 1, through: 0, by: -1) {
      strides[axis + offset] = shape[axis] == 1 ? 0 : stride
      stride *= shape[axis]
    }
    return strides
  }

  /// The flat offset in a tensor of `shape` of every element of `output` it broadcasts to.
  static func broadcastOffsets(_ shape: [Int], to output: [Int]) -> [Int] {
    var offsets = [Int](repeating: 0, count: output.reduce(1, *))
    Layout.walk(output, strides: broadcastStrides(shape, to: output)) { offsets[$0] = $1 }
    return offsets
  }

  /// Applies `operation` to `a` and `b` broadcast to `outputShape`, on up to `threads` threads
  /// for a large output (each takes whole runs of the innermost collapsed axis).
  @_optimize(speed)
  static func run(
    _ operation: Operation, a: UnsafePointer<Float>, aShape: [Int], b: UnsafePointer<Float>,
    bShape: [Int], output: UnsafeMutablePointer<Float>, outputShape: [Int], threads: Int = 1
  ) {
    guard let count = Tensor.elementCount(of: outputShape), count > 0 else { return }
    let (shape, aStrides, bStrides) = collapse(
      outputShape, broadcastStrides(aShape, to: outputShape),
      broadcastStrides(bShape, to: outputShape))
    let inner = shape.last ?? 1
    Parallel.forEachRows(count / inner, length: inner, threads: threads) { first, lines in
      runLines(
        operation, a: a, aStrides: aStrides, b: b, bStrides: bStrides, output: output,
        shape: shape, lines: first..<(first + lines))
    }
  }

  /// Lines `lines` (runs of the innermost collapsed axis) of ``run(_:a:aShape:b:bShape:output:outputShape:threads:)``.
  @_optimize(speed)
  private static func runLines(
    _ operation: Operation, a: UnsafePointer<Float>, aStrides: [Int], b: UnsafePointer<Float>,
    bStrides: [Int], output: UnsafeMutablePointer<Float>, shape: [Int], lines: Range<Int>
  ) {
    let inner = shape.last ?? 1
    let aInner = aStrides.last ?? 0
    let bInner = bStrides.last ?? 0
    let outerRank = max(shape.count - 1, 0)
    var index = [Int](repeating: 0, count: outerRank)
    var aOffset = 0
    var bOffset = 0
    // The coordinates of the first line, from the last outer axis (fastest) to the first.
    var remainder = lines.lowerBound
    for axis in stride(from: outerRank - 1, through: 0, by: -1) {
      index[axis] = remainder % shape[axis]
      remainder /= shape[axis]
      aOffset += index[axis] * aStrides[axis]
      bOffset += index[axis] * bStrides[axis]
    }
    var outputOffset = lines.lowerBound * inner
    let count = lines.upperBound * inner
    while outputOffset < count {
      innerLoop(
        operation, a: a + aOffset, aStride: aInner, b: b + bOffset, bStride: bInner,
        output: output + outputOffset, count: inner)
      outputOffset += inner
      var axis = outerRank - 1
      while axis >= 0 {
        index[axis] += 1
        aOffset += aStrides[axis]
        bOffset += bStrides[axis]
        if index[axis] < shape[axis] { break }
        aOffset -= aStrides[axis] * shape[axis]
        bOffset -= bStrides[axis] * shape[axis]
        index[axis] = 0
        axis -= 1
      }
    }
  }

  /// Merges adjacent axes that both operands walk the same way, so the inner loop is long.
  private static func collapse(
    _ shape: [Int], _ aStrides: [Int], _ bStrides: [Int]
  ) -> ([Int], [Int], [Int]) {
    var outShape: [Int] = []
    var outA: [Int] = []
    var outB: [Int] = []
    for axis in 0..<shape.count where shape[axis] != 1 {
      if let lastShape = outShape.last, let lastA = outA.last, let lastB = outB.last,
        lastA == aStrides[axis] * shape[axis], lastB == bStrides[axis] * shape[axis]
      {
        outShape[outShape.count - 1] = lastShape * shape[axis]
        outA[outA.count - 1] = aStrides[axis]
        outB[outB.count - 1] = bStrides[axis]
      } else {
        outShape.append(shape[axis])
        outA.append(aStrides[axis])
        outB.append(bStrides[axis])
      }
    }
    return (outShape, outA, outB)
  }

  @_optimize(speed)
  @inline(__always)
  private static func innerLoop(
    _ operation: Operation, a: UnsafePointer<Float>, aStride: Int, b: UnsafePointer<Float>,
    bStride: Int, output: UnsafeMutablePointer<Float>, count: Int
  ) {
    var index = 0
    let target = UnsafeMutableRawPointer(output)
    if aStride == 1 && bStride == 1 {
      let aRaw = UnsafeRawPointer(a)
      let bRaw = UnsafeRawPointer(b)
      while index + 8 <= count {
        let result = operation(
          aRaw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self),
          bRaw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self))
        target.storeBytes(of: result, toByteOffset: index * 4, as: SIMD8<Float>.self)
        index += 8
      }
    } else if aStride == 1 && bStride == 0 {
      let aRaw = UnsafeRawPointer(a)
      let bVector = SIMD8<Float>(repeating: b[0])
      while index + 8 <= count {
        let result = operation(
          aRaw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self), bVector)
        target.storeBytes(of: result, toByteOffset: index * 4, as: SIMD8<Float>.self)
        index += 8
      }
    } else if aStride == 0 && bStride == 1 {
      let aVector = SIMD8<Float>(repeating: a[0])
      let bRaw = UnsafeRawPointer(b)
      while index + 8 <= count {
        let result = operation(
          aVector, bRaw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self))
        target.storeBytes(of: result, toByteOffset: index * 4, as: SIMD8<Float>.self)
        index += 8
      }
    }
    while index < count {
      output[index] = operation(a[index * aStride], b[index * bStride])
      index += 1
    }
  }
}
