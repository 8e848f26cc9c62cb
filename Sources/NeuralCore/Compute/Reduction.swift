import Foundation

/// A reduction over some axes of a row-major tensor, as ONNX's `Reduce*` operators define it.
///
/// Sums accumulate in `Double`. Over an empty set of elements (an axis of length 0) the result is
/// the operation's identity: 0 for the sums and norms, 1 for the product, `-inf` for the
/// maximum and the logarithmic sums, `+inf` for the minimum, and NaN for the mean.
enum Reduction: String, Sendable, Hashable, CaseIterable {
  case sum = "ReduceSum"
  case mean = "ReduceMean"
  case max = "ReduceMax"
  case min = "ReduceMin"
  case product = "ReduceProd"
  case l1 = "ReduceL1"
  case l2 = "ReduceL2"
  case logSum = "ReduceLogSum"
  case logSumExp = "ReduceLogSumExp"
  case sumSquare = "ReduceSumSquare"

  /// The output shape: reduced axes become 1, or are dropped without `keepDimensions`.
  static func outputShape(_ shape: [Int], axes: Set<Int>, keepDimensions: Bool) -> [Int] {
    shape.indices.compactMap { axis in
      axes.contains(axis) ? (keepDimensions ? 1 : nil) : shape[axis]
    }
  }

  /// Reduces `input` of `shape` over `axes` (each in `0..<shape.count`) into `output`, which holds
  /// one value per combination of the other axes, in their order.
  func run(
    _ input: UnsafePointer<Float>, shape: [Int], axes: Set<Int>,
    into output: UnsafeMutablePointer<Float>
  ) {
    let (outputCount, reducedCount, strides) = Reduction.layout(shape, axes: axes)
    var shift = [Double](repeating: 0, count: outputCount)
    if self == .logSumExp {
      // log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the maximum, so exp cannot overflow.
      var maxima = [Double](repeating: -.infinity, count: outputCount)
      Reduction.visit(shape, strides) { inputIndex, outputIndex in
        maxima[outputIndex] = Swift.max(maxima[outputIndex], Double(input[inputIndex]))
      }
      shift = maxima.map { $0.isFinite ? $0 : 0 }
    }
    var accumulators = [Double](repeating: initialValue, count: outputCount)
    Reduction.visit(shape, strides) { inputIndex, outputIndex in
      accumulators[outputIndex] = combine(
        accumulators[outputIndex], Double(input[inputIndex]) - shift[outputIndex])
    }
    for index in 0..<outputCount {
      output[index] = Float(finish(accumulators[index], count: reducedCount) + shift[index])
    }
  }

  /// Writes `(x - mean) / (standard deviation + 1e-9)` over `axes` (ONNX
  /// `MeanVarianceNormalization`), with the statistics in `Double`.
  static func standardize(
    _ input: UnsafePointer<Float>, shape: [Int], axes: Set<Int>,
    into output: UnsafeMutablePointer<Float>
  ) {
    let (groups, count, strides) = layout(shape, axes: axes)
    let members = Double(count)
    var sums = [Double](repeating: 0, count: groups)
    visit(shape, strides) { inputIndex, group in sums[group] += Double(input[inputIndex]) }
    let means = sums.map { $0 / members }
    var squares = [Double](repeating: 0, count: groups)
    visit(shape, strides) { inputIndex, group in
      let difference = Double(input[inputIndex]) - means[group]
      squares[group] += difference * difference
    }
    let deviations = squares.map { ($0 / members).squareRoot() + 1e-9 }
    visit(shape, strides) { inputIndex, group in
      output[inputIndex] = Float((Double(input[inputIndex]) - means[group]) / deviations[group])
    }
  }

  /// The number of outputs, the number of inputs each reduces, and each input axis's stride in
  /// the output (0 along reduced axes).
  private static func layout(
    _ shape: [Int], axes: Set<Int>
  ) -> (outputs: Int, reduced: Int, strides: [Int]) {
    let kept = outputShape(shape, axes: axes, keepDimensions: true)
    var strides = [Int](repeating: 0, count: shape.count)
    var stride = 1
    for axis in shape.indices.reversed() {
      strides[axis] = axes.contains(axis) ? 0 : stride
      stride *= kept[axis]
    }
    let reduced = shape.indices.filter { axes.contains($0) }.reduce(1) { $0 * shape[$1] }
    return (kept.reduce(1, *), reduced, strides)
  }

  /// Calls `body` with every input element's flat index and its output index.
  private static func visit(_ shape: [Int], _ strides: [Int], _ body: (Int, Int) -> Void) {
    Layout.walk(shape, strides: strides, body)
  }

  private var initialValue: Double {
    switch self {
    case .max: -.infinity
    case .min: .infinity
    case .product: 1
    default: 0
    }
  }

  private func combine(_ accumulator: Double, _ value: Double) -> Double {
    switch self {
    case .sum, .mean, .logSum: accumulator + value
    case .max: value > accumulator || value.isNaN ? value : accumulator
    case .min: value < accumulator || value.isNaN ? value : accumulator
    case .product: accumulator * value
    case .l1: accumulator + Swift.abs(value)
    case .l2, .sumSquare: accumulator + value * value
    case .logSumExp: accumulator + Foundation.exp(value)
    }
  }

  private func finish(_ accumulator: Double, count: Int) -> Double {
    switch self {
    case .mean: accumulator / Double(count)
    case .l2: accumulator.squareRoot()
    case .logSum, .logSumExp: Foundation.log(accumulator)
    default: accumulator
    }
  }
}
