import CNative
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

  /// The function as the C kernels take it.
  var native: cnk_activation {
    switch self {
    case .identity: cnk_activation(kind: Int32(CNK_ACTIVATION_IDENTITY))
    case .relu: cnk_activation(clampingTo: 0, .infinity)
    case .clip(let low, let high): cnk_activation(clampingTo: low, high)
    case .sigmoid: cnk_activation(kind: Int32(CNK_ACTIVATION_SIGMOID))
    case .hardSigmoid(let alpha, let beta):
      cnk_activation(
        kind: Int32(CNK_ACTIVATION_HARD_SIGMOID), alpha: alpha, beta: beta, low: 0, high: 0)
    case .hardSwish: cnk_activation(kind: Int32(CNK_ACTIVATION_HARD_SWISH))
    case .silu: cnk_activation(kind: Int32(CNK_ACTIVATION_SILU))
    }
  }

  /// Whether the function maps zero to zero, so that it keeps the blocked layout's padding
  /// channels zero.
  var keepsZero: Bool {
    switch self {
    case .identity, .relu, .hardSwish, .silu: true
    case .clip(let low, let high): low <= 0 && high >= 0
    case .sigmoid: false
    case .hardSigmoid(_, let beta): beta <= 0
    }
  }

  /// Applies the function in place to `count` values with the kernel set's C kernel.
  func apply(_ values: UnsafeMutablePointer<Float>, count: Int, kernels: KernelSet = .active) {
    kernels.native.apply(self, to: values, count: count)
  }
}

extension cnk_activation {
  /// A function of `kind` without parameters.
  init(kind: Int32) {
    self.init(kind: kind, alpha: 0, beta: 0, low: 0, high: 0)
  }

  /// The clamp to `low...high` (the upper bound wins when they cross, as ONNX's Clip says).
  init(clampingTo low: Float, _ high: Float) {
    self.init(kind: Int32(CNK_ACTIVATION_CLAMP), alpha: 0, beta: 0, low: low, high: high)
  }
}
