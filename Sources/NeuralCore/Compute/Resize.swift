import Foundation

/// ONNX `Resize` (and the older `Upsample`) as one separable pass per resized axis.
///
/// While planning, ``taps(_:)`` turns an axis's sizes and the operator's modes into, for each
/// output index, a fixed number of input indices (clamped to the axis, as ONNX's edge padding
/// does) and weights; running is then ``apply(_:input:outer:inner:output:)``, a weighted sum
/// along the axis. The coordinate transforms, neighbour choice and coefficient formulas follow
/// the operator's definition (onnx/docs/Operators.md, Resize-19).
enum Resize {
  /// How an output index maps to a coordinate on the input axis.
  enum CoordinateTransform: String, Sendable {
    case halfPixel = "half_pixel"
    case halfPixelSymmetric = "half_pixel_symmetric"
    case pytorchHalfPixel = "pytorch_half_pixel"
    case alignCorners = "align_corners"
    case asymmetric
    case tfHalfPixelForNearest = "tf_half_pixel_for_nn"
    case tfCropAndResize = "tf_crop_and_resize"
  }

  /// How `nearest` mode rounds a coordinate; `simple` is opset 10's and `Upsample`'s rule
  /// (floor when enlarging, ceiling when shrinking).
  enum NearestRounding: String, Sendable {
    case roundPreferFloor = "round_prefer_floor"
    case roundPreferCeil = "round_prefer_ceil"
    case floor, ceil, simple
  }

  /// The interpolation.
  enum Mode: Sendable {
    case nearest(NearestRounding)
    case linear
    case cubic(a: Double)
  }

  /// Everything that decides one axis's taps.
  struct AxisRequest {
    var inputLength: Int
    var outputLength: Int
    /// Output over input length as the operator defines it (from `scales` or `sizes`).
    var scale: Double
    var mode: Mode
    var transform: CoordinateTransform
    var antialias = false
    var excludeOutside = false
    /// The region of interest's start and end on this axis, for `tf_crop_and_resize`.
    var region: (start: Double, end: Double) = (0, 1)
  }

  /// The taps of one axis: `taps` input indices and weights per output index.
  struct AxisTaps: Sendable {
    var inputLength: Int
    var outputLength: Int
    var taps: Int
    var indices: [Int]
    var weights: [Float]
    /// Output indices whose coordinate falls outside the input (`tf_crop_and_resize` only);
    /// they take the extrapolation value.
    var extrapolated: [Bool]
  }

  /// The taps for one axis.
  static func taps(_ request: AxisRequest) -> AxisTaps {
    let length = request.inputLength
    var indices: [Int] = []
    var weights: [Float] = []
    var extrapolated: [Bool] = []
    var tapCount = 0
    for index in 0..<request.outputLength {
      let (coordinate, outside) = inputCoordinate(of: index, request)
      let whole = coordinate.rounded(.down)
      let ratio = coordinate == whole ? 1 : coordinate - whole
      var coefficients = self.coefficients(ratio: ratio, request)
      let count = coefficients.count
      tapCount = count
      // The `count` input indices nearest the coordinate, ties to the smaller index, found on
      // the axis padded by ceil(count / 2) as ONNX's reference does.
      let padding = (count + 1) / 2
      let padded = coordinate + Double(padding)
      let base = padded.rounded(.down)
      let fraction = padded - base
      let offset: Int
      if count % 2 == 0 {
        offset = fraction == 0 ? -(count / 2) : -(count / 2) + 1
      } else {
        offset = fraction <= 0.5 ? -((count - 1) / 2) : -((count - 1) / 2) + 1
      }
      let start = Int(base) + offset - padding
      if request.excludeOutside {
        for tap in 0..<count where start + tap < 0 || start + tap >= length {
          coefficients[tap] = 0
        }
        let sum = coefficients.reduce(0, +)
        if sum != 0 { coefficients = coefficients.map { $0 / sum } }
      }
      for tap in 0..<count {
        indices.append(Swift.min(Swift.max(start + tap, 0), length - 1))
        weights.append(Float(coefficients[tap]))
      }
      extrapolated.append(outside)
    }
    return AxisTaps(
      inputLength: length, outputLength: request.outputLength, taps: tapCount, indices: indices,
      weights: weights, extrapolated: extrapolated)
  }

  /// How many taps an axis needs, known before computing them (for the planner's limits).
  static func tapCount(_ request: AxisRequest) -> Int {
    coefficients(ratio: 0.5, request).count
  }

  /// The input coordinate of an output index, and whether it lies outside the input
  /// (`tf_crop_and_resize` only).
  private static func inputCoordinate(of index: Int, _ request: AxisRequest) -> (Double, Bool) {
    let x = Double(index)
    let scale = request.scale
    let inputLength = Double(request.inputLength)
    let outputWidth = scale * inputLength
    switch request.transform {
    case .halfPixel:
      return ((x + 0.5) / scale - 0.5, false)
    case .halfPixelSymmetric:
      let adjustment = Double(request.outputLength) / outputWidth
      let offset = inputLength / 2 * (1 - adjustment)
      return (offset + (x + 0.5) / scale - 0.5, false)
    case .pytorchHalfPixel:
      return (outputWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5, false)
    case .alignCorners:
      return (outputWidth == 1 ? 0 : x * (inputLength - 1) / (outputWidth - 1), false)
    case .asymmetric:
      return (x / scale, false)
    case .tfHalfPixelForNearest:
      return ((x + 0.5) / scale, false)
    case .tfCropAndResize:
      let (start, end) = request.region
      var coordinate =
        outputWidth == 1
        ? (end - start) * (inputLength - 1) / 2
        : x * (end - start) * (inputLength - 1) / (outputWidth - 1)
      coordinate += start * (inputLength - 1)
      return (coordinate, coordinate < 0 || coordinate > inputLength - 1)
    }
  }

  /// The weights of the taps around a coordinate whose fractional part is `ratio` (in (0, 1]).
  private static func coefficients(ratio: Double, _ request: AxisRequest) -> [Double] {
    switch request.mode {
    case .nearest(let rounding):
      if ratio == 1 { return [0, 1] }
      let takeUpper: Bool
      switch rounding {
      case .roundPreferFloor: takeUpper = ratio > 0.5
      case .roundPreferCeil: takeUpper = ratio >= 0.5
      case .floor: takeUpper = false
      case .ceil: takeUpper = true
      case .simple: takeUpper = request.scale < 1
      }
      return takeUpper ? [0, 1] : [1, 0]
    case .linear:
      guard request.antialias else { return [1 - ratio, ratio] }
      let scale = Swift.min(request.scale, 1)
      let start = Int((-1 / scale).rounded(.down)) + 1
      let taps = (start..<(2 - start)).map { tap in
        Swift.min(Swift.max(1 - abs((Double(tap) - ratio) * scale), 0), 1)
      }
      return normalized(taps)
    case .cubic(let a):
      guard request.antialias else {
        return [ratio + 1, ratio, 1 - ratio, 2 - ratio].map { cubic($0, a: a) }
      }
      let scale = Swift.min(request.scale, 1)
      let start = Int((-2 / scale).rounded(.down)) + 1
      return normalized((start..<(2 - start)).map { cubic(scale * (Double($0) - ratio), a: a) })
    }
  }

  /// Keys' cubic convolution kernel with parameter `a`.
  private static func cubic(_ distance: Double, a: Double) -> Double {
    let x = abs(distance)
    if x <= 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
    if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
    return 0
  }

  private static func normalized(_ values: [Double]) -> [Double] {
    let sum = values.reduce(0, +)
    return sum == 0 ? values : values.map { $0 / sum }
  }

  /// Resizes the middle axis of an `[outer, inputLength, inner]` buffer into
  /// `[outer, outputLength, inner]`.
  ///
  /// - Parameters:
  ///   - axis: The axis's taps.
  ///   - extrapolationValue: The value of extrapolated output indices.
  ///   - input: `outer * inputLength * inner` floats.
  ///   - outer: The product of the axes before the resized one.
  ///   - inner: The product of the axes after it.
  ///   - output: `outer * outputLength * inner` floats.
  static func apply(
    _ axis: AxisTaps, extrapolationValue: Float, input: UnsafePointer<Float>, outer: Int,
    inner: Int, output: UnsafeMutablePointer<Float>
  ) {
    for block in 0..<outer {
      let source = input + block * axis.inputLength * inner
      let destination = output + block * axis.outputLength * inner
      for index in 0..<axis.outputLength {
        let row = destination + index * inner
        if axis.extrapolated[index] {
          row.update(repeating: extrapolationValue, count: inner)
          continue
        }
        row.update(repeating: 0, count: inner)
        for tap in (index * axis.taps)..<((index + 1) * axis.taps) {
          let weight = axis.weights[tap]
          if weight == 0 { continue }
          let from = source + axis.indices[tap] * inner
          for element in 0..<inner { row[element] += weight * from[element] }
        }
      }
    }
  }
}
