/// The scales and zero points of a linear quantization (ONNX's `QuantizeLinear` and
/// `DequantizeLinear`): one pair for the whole tensor, one per index of an axis, or one per block
/// of `blockSize` indices along the axis (opset 21).
///
/// Integer tensors are held as one `Int32` per element (see ``ElementType/integerRange``).
struct Quantization: Sendable {
  /// The scales, in the order of the parameter tensor.
  var scales: [Float]
  /// The zero points, as many as the scales.
  var zeroPoints: [Int32]
  /// The quantized type.
  var type: ElementType
  /// How element indices map to parameter indices.
  var mapping: Mapping

  /// How an element index selects its scale and zero point.
  enum Mapping: Sendable, Equatable {
    /// One scale for every element.
    case tensor
    /// One scale per index of an axis of `size` indices, `inner` elements apart.
    case axis(size: Int, inner: Int)
    /// One scale per block of `blockSize` indices along an axis of `size` indices, `inner`
    /// elements apart; parameters are laid out like the tensor with that axis shortened to
    /// `blocks`.
    case blocked(size: Int, inner: Int, blockSize: Int, blocks: Int)
  }

  /// The parameter index of element `index`.
  @inline(__always)
  func parameter(_ index: Int) -> Int {
    switch mapping {
    case .tensor: return 0
    case .axis(let size, let inner): return (index / inner) % size
    case .blocked(let size, let inner, let blockSize, let blocks):
      let outer = index / (size * inner)
      let position = (index / inner) % size
      return (outer * blocks + position / blockSize) * inner + index % inner
    }
  }

  /// `saturate(round_half_even(x / scale) + zero_point)` over `count` floats, written as
  /// `Int32` elements; NaN gives the zero point.
  ///
  /// Runs of elements that share a scale (the whole tensor, or each channel's plane) go to the
  /// set's C kernel; per-element parameters (an axis that is the innermost, or blocks) take
  /// the scalar loop.
  func quantize(
    _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutableRawPointer,
    kernels: KernelSet
  ) {
    guard let range = type.integerRange else { return }
    let (low, high) = IntegerConversion.bounds(range)
    guard let run = runLength(count: count) else {
      for index in 0..<count {
        let parameter = parameter(index)
        var value =
          (input[index] / scales[parameter]).rounded(.toNearestOrEven)
          + Float(zeroPoints[parameter])
        if value.isNaN { value = Float(zeroPoints[parameter]) }
        value = min(max(value, low), high)
        output.storeBytes(of: Int32(value), toByteOffset: index * 4, as: Int32.self)
      }
      return
    }
    let target = output.assumingMemoryBound(to: Int32.self)
    for start in stride(from: 0, to: count, by: run) {
      let parameter = parameter(start)
      kernels.native.quantizeLinear(
        input + start, Int64(min(run, count - start)), scales[parameter],
        Float(zeroPoints[parameter]), low, high, target + start)
    }
  }

  /// `(x - zero_point) * scale` over `count` `Int32` elements.
  ///
  /// Runs that share a scale go to the set's C kernel when the type's values fit in ±2^24 (so
  /// that the difference is exact in float); the rest take the scalar loop in `Int64`.
  func dequantize(
    _ input: UnsafeRawPointer, count: Int, into output: UnsafeMutablePointer<Float>,
    kernels: KernelSet
  ) {
    let exact = type.integerRange.map { $0.lowerBound >= -(1 << 24) && $0.upperBound <= 1 << 24 }
    guard exact == true, let run = runLength(count: count) else {
      for index in 0..<count {
        let parameter = parameter(index)
        let value = input.load(fromByteOffset: index * 4, as: Int32.self)
        output[index] = Float(Int64(value) - Int64(zeroPoints[parameter])) * scales[parameter]
      }
      return
    }
    let source = input.assumingMemoryBound(to: Int32.self)
    for start in stride(from: 0, to: count, by: run) {
      let parameter = parameter(start)
      kernels.native.dequantizeLinear(
        source + start, Int64(min(run, count - start)), Float(zeroPoints[parameter]),
        scales[parameter], output + start)
    }
  }

  /// The elements that share one parameter, in consecutive runs: all of them for one pair per
  /// tensor, a plane per index of the axis; `nil` when runs would be shorter than a vector.
  private func runLength(count: Int) -> Int? {
    switch mapping {
    case .tensor: return max(count, 1)
    case .axis(_, let inner): return inner >= 16 ? inner : nil
    case .blocked: return nil
    }
  }

  /// The quantized values of constant floats.
  func quantize(_ values: [Float]) -> [Int64] {
    var result = [Int32](repeating: 0, count: values.count)
    values.withUnsafeBufferPointer { input in
      result.withUnsafeMutableBytes { output in
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        quantize(source, count: values.count, into: target, kernels: .portable)
      }
    }
    return result.map { Int64($0) }
  }

  /// The float values of constant quantized integers.
  func dequantize(_ values: [Int64]) -> [Float] {
    let integers = values.map { Int32(truncatingIfNeeded: $0) }
    var result = [Float](repeating: 0, count: values.count)
    integers.withUnsafeBytes { input in
      result.withUnsafeMutableBufferPointer { output in
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        dequantize(source, count: values.count, into: target, kernels: .portable)
      }
    }
    return result
  }
}

/// Element-wise conversions between integer and float buffers of the quantized operators.
enum IntegerConversion {
  /// The floats a value of `range` is clamped to before it becomes an `Int32`: the range's
  /// ends, the top one lowered to the largest float below 2^31 (which `Int32` cannot hold).
  static func bounds(_ range: ClosedRange<Int32>) -> (low: Float, high: Float) {
    (Float(range.lowerBound), min(Float(range.upperBound), 2_147_483_520))
  }

  /// `Float(x - zeroPoint)` of `count` `Int32` elements, the zero point per element of an axis
  /// (`zeroPoints.count` indices `inner` elements apart) or one for all.
  static func centered(
    _ input: UnsafeRawPointer, count: Int, zeroPoints: [Int32], inner: Int,
    into output: UnsafeMutablePointer<Float>
  ) {
    let axis = max(zeroPoints.count, 1)
    for index in 0..<count {
      let zeroPoint = zeroPoints.isEmpty ? 0 : zeroPoints[(index / inner) % axis]
      let value = input.load(fromByteOffset: index * 4, as: Int32.self)
      output[index] = Float(Int64(value) - Int64(zeroPoint))
    }
  }

  /// Integer sums computed in float written as `Int32` elements (rounded to the nearest,
  /// saturated to Int32).
  static func integers(
    _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutableRawPointer
  ) {
    for index in 0..<count {
      let value = input[index].rounded(.toNearestOrEven)
      let integer: Int32 =
        value.isNaN
        ? 0 : value >= 2_147_483_520 ? .max : value <= -2_147_483_648 ? .min : Int32(value)
      output.storeBytes(of: integer, toByteOffset: index * 4, as: Int32.self)
    }
  }

  /// `saturate(round_half_even(sum * multiplier) + zeroPoint)` of integer sums computed in
  /// float, one multiplier per index of an axis (`multipliers.count` indices `inner` elements
  /// apart), as `Int32` elements of `type`.
  ///
  /// Runs that share a multiplier (all of them, or each plane of at least 16) go to the set's C
  /// kernel; shorter runs take the scalar loop.
  static func requantize(
    _ input: UnsafePointer<Float>, count: Int, multipliers: [Float], inner: Int,
    zeroPoint: Int32, type: ElementType, into output: UnsafeMutableRawPointer, kernels: KernelSet
  ) {
    guard let range = type.integerRange else { return }
    let (low, high) = bounds(range)
    let axis = max(multipliers.count, 1)
    let run = multipliers.count <= 1 ? max(count, 1) : inner >= 16 ? inner : 0
    if run > 0 {
      let target = output.assumingMemoryBound(to: Int32.self)
      for start in stride(from: 0, to: count, by: run) {
        kernels.native.requantizeLinear(
          input + start, Int64(min(run, count - start)),
          multipliers.isEmpty ? 1 : multipliers[(start / inner) % axis], Float(zeroPoint), low,
          high, target + start)
      }
      return
    }
    for index in 0..<count {
      let multiplier = multipliers[(index / inner) % axis]
      var value = (input[index] * multiplier).rounded(.toNearestOrEven) + Float(zeroPoint)
      if value.isNaN { value = Float(zeroPoint) }
      value = min(max(value, low), high)
      output.storeBytes(of: Int32(value), toByteOffset: index * 4, as: Int32.self)
    }
  }
}
