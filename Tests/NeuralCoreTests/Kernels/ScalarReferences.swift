import Foundation

@testable import NeuralCore

// Plain scalar references the kernel tests compare against: loops over arrays written from each
// operation's definition, bounds-checked at every tap, sharing no index arithmetic with the
// kernels. They live with the tests because nothing at run time calls them.

extension Pooling {
  /// The scalar reference: every tap bounds-checked, on arrays.
  func reference(input: [Float], planes: Int, height: Int, width: Int) -> [Float] {
    guard let size = outputSize(height: height, width: width) else { return [] }
    var output = [Float](repeating: 0, count: planes * size.height * size.width)
    for plane in 0..<planes {
      for oy in 0..<size.height {
        for ox in 0..<size.width {
          var maximum = -Float.infinity
          var sum: Float = 0
          var real = 0
          var padded = 0
          for ky in 0..<window.kernelHeight {
            let y = oy * window.strideY - window.padTop + ky * window.dilationY
            for kx in 0..<window.kernelWidth {
              let x = ox * window.strideX - window.padLeft + kx * window.dilationX
              let insidePadding =
                y >= -window.padTop && y < height + window.padBottom && x >= -window.padLeft
                && x < width + window.padRight
              if insidePadding { padded += 1 }
              guard y >= 0 && y < height && x >= 0 && x < width else { continue }
              let value = input[(plane * height + y) * width + x]
              if value > maximum || value.isNaN { maximum = value }
              sum += value
              real += 1
            }
          }
          let result: Float
          switch kind {
          case .max: result = maximum
          case .average(let countsPadding):
            let divisor = countsPadding ? padded : real
            result = divisor > 0 ? sum / Float(divisor) : 0
          }
          output[(plane * size.height + oy) * size.width + ox] = result
        }
      }
    }
    return output
  }

  /// The scalar reference of ``globalAverage(input:planes:count:output:threads:)``.
  static func globalAverageReference(input: [Float], planes: Int, count: Int) -> [Float] {
    (0..<planes).map { plane in
      var sum: Float = 0
      for index in 0..<count { sum += input[plane * count + index] }
      return count > 0 ? sum / Float(count) : 0
    }
  }
}

extension Elementwise.Operation {
  /// The operation on one pair, from its definition.
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
}

extension Elementwise {
  /// The scalar reference: NumPy broadcasting from its definition (shapes aligned at the right,
  /// a dimension of 1 repeated), each output element's operands found from its multi-index.
  static func reference(
    _ operation: Operation, a: [Float], aShape: [Int], b: [Float], bShape: [Int]
  ) -> [Float]? {
    let rank = max(aShape.count, bShape.count)
    let aPadded = [Int](repeating: 1, count: rank - aShape.count) + aShape
    let bPadded = [Int](repeating: 1, count: rank - bShape.count) + bShape
    var shape: [Int] = []
    for (aDimension, bDimension) in zip(aPadded, bPadded) {
      guard aDimension == bDimension || aDimension == 1 || bDimension == 1 else { return nil }
      shape.append(aDimension == 1 ? bDimension : aDimension)
    }
    let count = shape.reduce(1, *)
    return (0..<count).map { flat in
      var remainder = flat
      var coordinates = [Int](repeating: 0, count: rank)
      for axis in Swift.stride(from: rank - 1, through: 0, by: -1) {
        coordinates[axis] = remainder % shape[axis]
        remainder /= shape[axis]
      }
      func offset(_ operandShape: [Int]) -> Int {
        var offset = 0
        for axis in 0..<rank {
          offset = offset * operandShape[axis] + (operandShape[axis] == 1 ? 0 : coordinates[axis])
        }
        return offset
      }
      return operation(a[offset(aPadded)], b[offset(bPadded)])
    }
  }
}

extension Softmax {
  /// The scalar reference, in double precision from the definition `exp(x) / sum(exp(x))`.
  static func reference(input: [Float], outer: Int, length: Int, inner: Int) -> [Float] {
    var output = [Float](repeating: 0, count: input.count)
    for block in 0..<outer {
      for lane in 0..<inner {
        let indices = (0..<length).map { block * length * inner + $0 * inner + lane }
        let maximum = indices.map { Double(input[$0]) }.max() ?? 0
        let total = indices.reduce(0.0) { $0 + Foundation.exp(Double(input[$1]) - maximum) }
        for index in indices {
          output[index] = Float(Foundation.exp(Double(input[index]) - maximum) / total)
        }
      }
    }
    return output
  }
}

extension Convolution {
  /// The scalar reference: a direct seven-loop convolution on arrays.
  static func reference(
    input: [Float], batch: Int, inputChannels: Int, height: Int, width: Int, weights: [Float],
    bias: [Float]?, outputChannels: Int, groups: Int, window: Window, activation: Activation
  ) -> [Float] {
    guard let size = window.outputSize(height: height, width: width) else { return [] }
    let groupInputs = inputChannels / groups
    let groupOutputs = outputChannels / groups
    var output = [Float](
      repeating: 0, count: batch * outputChannels * size.height * size.width)
    for n in 0..<batch {
      for oc in 0..<outputChannels {
        let group = oc / groupOutputs
        for oy in 0..<size.height {
          for ox in 0..<size.width {
            var sum: Float = bias?[oc] ?? 0
            for ic in 0..<groupInputs {
              let channel = group * groupInputs + ic
              for ky in 0..<window.kernelHeight {
                let y = oy * window.strideY + ky * window.dilationY - window.padTop
                guard y >= 0 && y < height else { continue }
                for kx in 0..<window.kernelWidth {
                  let x = ox * window.strideX + kx * window.dilationX - window.padLeft
                  guard x >= 0 && x < width else { continue }
                  let value = input[((n * inputChannels + channel) * height + y) * width + x]
                  let weight =
                    weights[
                      ((oc * groupInputs + ic) * window.kernelHeight + ky) * window.kernelWidth
                        + kx]
                  sum += value * weight
                }
              }
            }
            output[((n * outputChannels + oc) * size.height + oy) * size.width + ox] =
              activation(sum)
          }
        }
      }
    }
    return output
  }
}

extension Layout {
  /// Row-major strides of a shape, written out here so the references share no code with
  /// the kernels.
  private static func referenceStrides(of shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 1, count: shape.count)
    for axis in Swift.stride(from: shape.count - 2, through: 0, by: -1) {
      strides[axis] = strides[axis + 1] * shape[axis + 1]
    }
    return strides
  }

  /// The scalar reference of ``transpose(input:shape:permutation:output:)`` on arrays.
  static func transposeReference(input: [Float], shape: [Int], permutation: [Int]) -> [Float] {
    let outputShape = permutation.map { shape[$0] }
    let inputStrides = referenceStrides(of: shape)
    return (0..<input.count).map { flat in
      var remainder = flat
      var offset = 0
      for axis in Swift.stride(from: outputShape.count - 1, through: 0, by: -1) {
        offset += (remainder % outputShape[axis]) * inputStrides[permutation[axis]]
        remainder /= outputShape[axis]
      }
      return input[offset]
    }
  }

  /// The scalar reference of ``pad(input:shape:begins:ends:mode:output:)`` on arrays.
  ///
  /// Reflection bounces off each end one step at a time (NumPy's `reflect`: the edge element is
  /// not repeated), rather than folding by the period as the kernel does.
  static func padReference(
    input: [Float], shape: [Int], begins: [Int], ends: [Int], mode: PadMode
  ) -> [Float] {
    let outputShape = (0..<shape.count).map { shape[$0] + begins[$0] + ends[$0] }
    let count = outputShape.reduce(1, *)
    let inputStrides = referenceStrides(of: shape)
    func source(_ coordinate: Int, length: Int) -> Int? {
      var coordinate = coordinate
      switch mode {
      case .constant:
        return (0..<length).contains(coordinate) ? coordinate : nil
      case .edge:
        return min(max(coordinate, 0), length - 1)
      case .reflect:
        guard length > 1 else { return 0 }
        while !(0..<length).contains(coordinate) {
          coordinate = coordinate < 0 ? -coordinate : 2 * (length - 1) - coordinate
        }
        return coordinate
      }
    }
    return (0..<count).map { flat in
      var remainder = flat
      var offset = 0
      for axis in Swift.stride(from: outputShape.count - 1, through: 0, by: -1) {
        let coordinate = remainder % outputShape[axis]
        remainder /= outputShape[axis]
        guard let source = source(coordinate - begins[axis], length: shape[axis]) else {
          if case .constant(let value) = mode { return value }
          return 0
        }
        offset += source * inputStrides[axis]
      }
      return input[offset]
    }
  }
}

extension GEMM {
  /// The scalar reference: `C = alpha * op(A) * op(B) + beta * C` with `op` an optional transpose.
  ///
  /// `a` is `m × k` (or `k × m` when `transposeA`), `b` is `k × n` (or `n × k`), `c` is `m × n`.
  static func reference(
    m: Int, n: Int, k: Int, a: [Float], transposeA: Bool, b: [Float], transposeB: Bool,
    alpha: Float, beta: Float, c: inout [Float]
  ) {
    for i in 0..<m {
      for j in 0..<n {
        var sum: Float = 0
        for p in 0..<k {
          let aValue = transposeA ? a[p * m + i] : a[i * k + p]
          let bValue = transposeB ? b[j * k + p] : b[p * n + j]
          sum += aValue * bValue
        }
        c[i * n + j] = alpha * sum + (beta == 0 ? 0 : beta * c[i * n + j])
      }
    }
  }
}
