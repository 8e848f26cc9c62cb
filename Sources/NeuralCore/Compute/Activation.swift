import Foundation

/// An element-wise activation function, applied alone or fused into a convolution or GEMM.
public enum Activation: Sendable, Hashable {
  /// Leaves values unchanged.
  case identity
  /// `max(x, 0)`.
  case relu
  /// `min(max(x, min), max)`; ReLU6 is `clip(min: 0, max: 6)`.
  case clip(min: Float, max: Float)
  /// `1 / (1 + exp(-x))`.
  case sigmoid
  /// `max(0, min(1, alpha * x + beta))`.
  case hardSigmoid(alpha: Float, beta: Float)
  /// `x * max(0, min(1, x / 6 + 1 / 2))`.
  case hardSwish
  /// `x * sigmoid(x)`, also called Swish.
  case silu

  /// Applies the function to one value.
  ///
  /// - Parameter x: The input value.
  /// - Returns: The activated value.
  @inline(__always)
  public func callAsFunction(_ x: Float) -> Float {
    switch self {
    case .identity: return x
    case .relu: return x < 0 ? 0 : x
    case .clip(let low, let high):
      // The upper bound wins when the bounds cross, as ONNX specifies.
      var value = x
      if value < low { value = low }
      if value > high { value = high }
      return value
    case .sigmoid: return Activation.logistic(x)
    case .hardSigmoid(let alpha, let beta): return Swift.max(0, Swift.min(1, alpha * x + beta))
    case .hardSwish: return x * Swift.max(0, Swift.min(1, x * (1.0 / 6.0) + 0.5))
    case .silu: return x * Activation.logistic(x)
    }
  }

  @inline(__always)
  static func logistic(_ x: Float) -> Float {
    // Evaluated from the side where exp cannot overflow.
    if x >= 0 {
      return 1 / (1 + Foundation.exp(-x))
    }
    let e = Foundation.exp(x)
    return e / (1 + e)
  }

  /// The bounds when the function is a clamp (identity, ReLU, clip), which kernels fuse into
  /// their stores; `nil` for the others, which run as a separate pass.
  var clampBounds: (low: Float, high: Float)? {
    switch self {
    case .identity: (-.infinity, .infinity)
    case .relu: (0, .infinity)
    case .clip(let low, let high): (low, high)
    case .sigmoid, .hardSigmoid, .hardSwish, .silu: nil
    }
  }

  /// Applies the function in place to `count` values, eight lanes at a time where it can.
  @_optimize(speed)
  func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
    switch self {
    case .identity:
      return
    case .relu:
      applyVector(values, count: count) { $0.replacing(with: 0, where: $0 .< 0) }
    case .clip(let low, let high):
      let lowVector = SIMD8<Float>(repeating: low)
      let highVector = SIMD8<Float>(repeating: high)
      applyVector(values, count: count) { vector in
        let raised = vector.replacing(with: lowVector, where: vector .< lowVector)
        return raised.replacing(with: highVector, where: raised .> highVector)
      }
    case .hardSwish:
      applyVector(values, count: count) {
        let gate = ($0 * (1.0 / 6.0) + 0.5).clamped(
          lowerBound: SIMD8(repeating: 0), upperBound: SIMD8(repeating: 1))
        return $0 * gate
      }
    case .hardSigmoid(let alpha, let beta):
      applyVector(values, count: count) {
        ($0 * alpha + beta).clamped(
          lowerBound: SIMD8(repeating: 0), upperBound: SIMD8(repeating: 1))
      }
    case .sigmoid, .silu:
      for index in 0..<count { values[index] = self(values[index]) }
    }
  }

  @_optimize(speed)
  @inline(__always)
  private func applyVector(
    _ values: UnsafeMutablePointer<Float>, count: Int,
    _ transform: (SIMD8<Float>) -> SIMD8<Float>
  ) {
    var index = 0
    let raw = UnsafeMutableRawPointer(values)
    while index + 8 <= count {
      let vector = raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self)
      raw.storeBytes(of: transform(vector), toByteOffset: index * 4, as: SIMD8<Float>.self)
      index += 8
    }
    while index < count {
      var tail = SIMD8<Float>(repeating: 0)
      tail[0] = values[index]
      values[index] = transform(tail)[0]
      index += 1
    }
  }
}
