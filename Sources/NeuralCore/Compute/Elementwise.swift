import CNative
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

    /// The operation's code in the kernels' `cnk_binary_operation`.
    var native: Int32 {
      let code: cnk_binary_operation
      switch self {
      case .add: code = CNK_BINARY_ADD
      case .subtract: code = CNK_BINARY_SUBTRACT
      case .multiply: code = CNK_BINARY_MULTIPLY
      case .divide: code = CNK_BINARY_DIVIDE
      case .power: code = CNK_BINARY_POWER
      case .prelu: code = CNK_BINARY_PRELU
      case .remainder: code = CNK_BINARY_REMAINDER
      case .modulo: code = CNK_BINARY_MODULO
      case .maximum: code = CNK_BINARY_MAXIMUM
      case .minimum: code = CNK_BINARY_MINIMUM
      case .equal: code = CNK_BINARY_EQUAL
      case .less: code = CNK_BINARY_LESS
      case .greater: code = CNK_BINARY_GREATER
      case .lessOrEqual: code = CNK_BINARY_LESS_OR_EQUAL
      case .greaterOrEqual: code = CNK_BINARY_GREATER_OR_EQUAL
      case .and: code = CNK_BINARY_AND
      case .or: code = CNK_BINARY_OR
      case .xor: code = CNK_BINARY_XOR
      }
      return Int32(bitPattern: code.rawValue)
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
  /// for a large output (each takes whole runs of the innermost collapsed axis), with the
  /// `binary` kernel of `kernels` for each run.
  static func run(
    _ operation: Operation, a: UnsafePointer<Float>, aShape: [Int], b: UnsafePointer<Float>,
    bShape: [Int], output: UnsafeMutablePointer<Float>, outputShape: [Int], threads: Int = 1,
    kernels: NativeKernels
  ) {
    guard let count = Tensor.elementCount(of: outputShape), count > 0 else { return }
    let (shape, aStrides, bStrides) = collapse(
      outputShape, broadcastStrides(aShape, to: outputShape),
      broadcastStrides(bShape, to: outputShape))
    let inner = shape.last ?? 1
    Parallel.forEachRows(count / inner, length: inner, threads: threads) { first, lines in
      runLines(
        operation.native, a: a, aStrides: aStrides, b: b, bStrides: bStrides, output: output,
        shape: shape, lines: first..<(first + lines), kernels: kernels)
    }
  }

  /// Lines `lines` (runs of the innermost collapsed axis) of ``run(_:a:aShape:b:bShape:output:outputShape:threads:)``.
  private static func runLines(
    _ operation: Int32, a: UnsafePointer<Float>, aStrides: [Int], b: UnsafePointer<Float>,
    bStrides: [Int], output: UnsafeMutablePointer<Float>, shape: [Int], lines: Range<Int>,
    kernels: NativeKernels
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
      kernels.binary(
        operation, a + aOffset, Int64(aInner), b + bOffset, Int64(bInner),
        output + outputOffset, Int64(inner))
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
}
