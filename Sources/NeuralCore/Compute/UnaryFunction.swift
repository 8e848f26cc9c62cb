import CNative
import Foundation

/// An element-wise math function of one tensor, as the ONNX operators of the same names define
/// it (`Abs`, `Exp`, `Elu`, `Gelu`, ...), for the operators that are not fused into a
/// convolution (see ``Activation``).
enum UnaryFunction: Sendable, Hashable {
  case abs
  case negate
  case exp
  case log
  case sqrt
  case reciprocal
  case tanh
  case erf
  case floor
  case ceil
  /// Round half to even.
  case round
  case sign
  /// `log(1 + exp(x))`.
  case softplus
  /// `x / (1 + |x|)`.
  case softsign
  /// `x` for `x >= 0`, else `alpha * x`.
  case leakyRelu(alpha: Float)
  /// `x` for `x > 0`, else `alpha * (exp(x) - 1)`.
  case elu(alpha: Float)
  /// `gamma * x` for `x > 0`, else `gamma * alpha * (exp(x) - 1)`.
  case selu(alpha: Float, gamma: Float)
  /// `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`.
  case celu(alpha: Float)
  /// `x` for `x > alpha`, else 0.
  case thresholdedRelu(alpha: Float)
  /// `x * tanh(softplus(x))`.
  case mish
  /// `x * Phi(x)` with the normal CDF exact (`erf`) or approximated by `tanh`.
  case gelu(tanhApproximation: Bool)
  /// `x + bias` below `-lambda`, `x - bias` above `lambda`, else 0.
  case shrink(bias: Float, lambda: Float)
  case sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh

  /// The function of an ONNX operator with its attributes, or `nil` for another operator.
  static func named(
    _ operatorName: String, attributes: NodeAttributes
  ) throws(NeuralCoreError) -> UnaryFunction? {
    switch operatorName {
    case "Abs": return .abs
    case "Neg": return .negate
    case "Exp": return .exp
    case "Log": return .log
    case "Sqrt": return .sqrt
    case "Reciprocal": return .reciprocal
    case "Tanh": return .tanh
    case "Erf": return .erf
    case "Floor": return .floor
    case "Ceil": return .ceil
    case "Round": return .round
    case "Sign": return .sign
    case "Softplus": return .softplus
    case "Softsign": return .softsign
    case "Mish": return .mish
    case "LeakyRelu": return .leakyRelu(alpha: try attributes.float("alpha", default: 0.01))
    case "Elu": return .elu(alpha: try attributes.float("alpha", default: 1))
    case "Celu": return .celu(alpha: try attributes.float("alpha", default: 1))
    case "ThresholdedRelu":
      return .thresholdedRelu(alpha: try attributes.float("alpha", default: 1))
    case "Selu":
      return .selu(
        alpha: try attributes.float("alpha", default: 1.67326319217681884765625),
        gamma: try attributes.float("gamma", default: 1.05070102214813232421875))
    case "Shrink":
      return .shrink(
        bias: try attributes.float("bias", default: 0),
        lambda: try attributes.float("lambd", default: 0.5))
    case "Sin": return .sin
    case "Cos": return .cos
    case "Tan": return .tan
    case "Asin": return .asin
    case "Acos": return .acos
    case "Atan": return .atan
    case "Sinh": return .sinh
    case "Cosh": return .cosh
    case "Asinh": return .asinh
    case "Acosh": return .acosh
    case "Atanh": return .atanh
    case "Gelu":
      switch try attributes.string("approximate", default: "none") {
      case "none": return .gelu(tanhApproximation: false)
      case "tanh": return .gelu(tanhApproximation: true)
      case let other:
        throw attributes.error(.unsupported, "Gelu approximate '\(other)' is not supported")
      }
    default: return nil
    }
  }

  /// Applies the function to one value.
  func callAsFunction(_ x: Float) -> Float {
    switch self {
    case .abs: return Swift.abs(x)
    case .negate: return -x
    case .exp: return Foundation.exp(x)
    case .log: return Foundation.log(x)
    case .sqrt: return x.squareRoot()
    case .reciprocal: return 1 / x
    case .tanh: return Foundation.tanh(x)
    case .erf: return Foundation.erf(x)
    case .floor: return x.rounded(.down)
    case .ceil: return x.rounded(.up)
    case .round: return x.rounded(.toNearestOrEven)
    case .sign: return x > 0 ? 1 : (x < 0 ? -1 : x)
    case .softplus: return UnaryFunction.softplus(x)
    case .softsign: return x / (1 + Swift.abs(x))
    case .leakyRelu(let alpha): return x >= 0 ? x : alpha * x
    case .elu(let alpha): return x > 0 ? x : alpha * (Foundation.expm1(x))
    case .selu(let alpha, let gamma): return x > 0 ? gamma * x : gamma * alpha * Foundation.expm1(x)
    case .celu(let alpha):
      return Swift.max(0, x) + Swift.min(0, alpha * Foundation.expm1(x / alpha))
    case .thresholdedRelu(let alpha): return x > alpha ? x : 0
    case .mish: return x * Foundation.tanh(UnaryFunction.softplus(x))
    case .gelu(let tanhApproximation):
      if tanhApproximation {
        let inner = Float(0.7978845608028654) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + Foundation.tanh(inner))
      }
      return 0.5 * x * (1 + Foundation.erf(x * Float(0.7071067811865476)))
    case .shrink(let bias, let lambda): return x < -lambda ? x + bias : (x > lambda ? x - bias : 0)
    case .sin: return Foundation.sin(x)
    case .cos: return Foundation.cos(x)
    case .tan: return Foundation.tan(x)
    case .asin: return Foundation.asin(x)
    case .acos: return Foundation.acos(x)
    case .atan: return Foundation.atan(x)
    case .sinh: return Foundation.sinh(x)
    case .cosh: return Foundation.cosh(x)
    case .asinh: return Foundation.asinh(x)
    case .acosh: return Foundation.acosh(x)
    case .atanh: return Foundation.atanh(x)
    }
  }

  /// `log(1 + exp(x))` without overflow for large `x`.
  private static func softplus(_ x: Float) -> Float {
    x > 0 ? x + Foundation.log1p(Foundation.exp(-x)) : Foundation.log1p(Foundation.exp(x))
  }

  /// The function as the C kernels take it, for the functions they compute.
  var native: cnk_activation? {
    switch self {
    case .tanh: cnk_activation(kind: Int32(CNK_ACTIVATION_TANH))
    case .erf: cnk_activation(kind: Int32(CNK_ACTIVATION_ERF))
    case .gelu(let tanhApproximation):
      cnk_activation(
        kind: Int32(tanhApproximation ? CNK_ACTIVATION_GELU_TANH : CNK_ACTIVATION_GELU))
    case .mish: cnk_activation(kind: Int32(CNK_ACTIVATION_MISH))
    default: nil
    }
  }

  /// Applies the function to `count` values, with the kernel set's C kernel where it has one.
  func apply(
    _ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>,
    kernels: KernelSet = .active, threads: Int = 1
  ) {
    if let function = native {
      kernels.native.activate(function, input, output, count: count, threads: threads)
      return
    }
    for index in 0..<count { output[index] = self(input[index]) }
  }
}
