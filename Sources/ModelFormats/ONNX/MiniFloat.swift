import NeuralCore

/// Widens the floating-point formats narrower than float32 that ONNX stores as bit patterns.
enum MiniFloat {
  /// How a format spends its largest exponent.
  private enum Specials {
    /// IEEE 754: all-ones exponent is infinity (zero mantissa) or NaN.
    case ieee
    /// Finite: only the all-ones pattern (exponent and mantissa) is NaN.
    case finiteAllOnesNaN
    /// Finite, unsigned zero: the negative-zero pattern is NaN.
    case finiteNegativeZeroNaN
    /// Finite with no NaN at all.
    case finite
  }

  /// Converts a bit pattern of `type` to float32 exactly.
  ///
  /// - Parameters:
  ///   - bits: The pattern in the low bits.
  ///   - type: One of float16, bfloat16, the float8 types or float4e2m1.
  /// - Returns: The value.
  static func decode(_ bits: UInt32, as type: ONNXDataType) -> Float {
    switch type {
    case .bfloat16: return Float(bitPattern: (bits & 0xFFFF) << 16)
    case .float16: return decode(bits, exponentBits: 5, mantissaBits: 10, bias: 15, .ieee)
    case .float8E4M3FN:
      return decode(bits, exponentBits: 4, mantissaBits: 3, bias: 7, .finiteAllOnesNaN)
    case .float8E4M3FNUZ:
      return decode(bits, exponentBits: 4, mantissaBits: 3, bias: 8, .finiteNegativeZeroNaN)
    case .float8E5M2: return decode(bits, exponentBits: 5, mantissaBits: 2, bias: 15, .ieee)
    case .float8E5M2FNUZ:
      return decode(bits, exponentBits: 5, mantissaBits: 2, bias: 16, .finiteNegativeZeroNaN)
    case .float4E2M1: return decode(bits, exponentBits: 2, mantissaBits: 1, bias: 1, .finite)
    case .float8E8M0:
      let exponent = bits & 0xFF
      return exponent == 0xFF
        ? .nan : Float(sign: .plus, exponent: Int(exponent) - 127, significand: 1)
    default: return .nan
    }
  }

  private static func decode(
    _ bits: UInt32, exponentBits: UInt32, mantissaBits: UInt32, bias: Int, _ specials: Specials
  ) -> Float {
    let exponentMask: UInt32 = (1 << exponentBits) - 1
    let mantissaMask: UInt32 = (1 << mantissaBits) - 1
    let isNegative = (bits >> (exponentBits + mantissaBits)) & 1 == 1
    let exponent = (bits >> mantissaBits) & exponentMask
    let mantissa = bits & mantissaMask
    switch specials {
    case .ieee where exponent == exponentMask:
      return mantissa == 0 ? (isNegative ? -.infinity : .infinity) : .nan
    case .finiteAllOnesNaN where exponent == exponentMask && mantissa == mantissaMask:
      return .nan
    case .finiteNegativeZeroNaN where isNegative && exponent == 0 && mantissa == 0:
      return .nan
    default:
      break
    }
    let magnitude: Float
    if exponent == 0 {
      magnitude =
        Float(mantissa) * Float(sign: .plus, exponent: 1 - bias - Int(mantissaBits), significand: 1)
    } else {
      let significand = 1 + Float(mantissa) / Float(1 << mantissaBits)
      magnitude = Float(sign: .plus, exponent: Int(exponent) - bias, significand: significand)
    }
    return isNegative ? -magnitude : magnitude
  }
}
