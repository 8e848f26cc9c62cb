/// The scale and zero point of an activation stored as asymmetric uint8, as ONNX
/// `QuantizeLinear` and `DequantizeLinear` apply them: `q = saturate(round(x / scale) +
/// zeroPoint)` to `0...255`, `x = (q - zeroPoint) * scale`.
package struct AffineQuantization: Sendable, Hashable {
  /// The step between neighbouring levels.
  package var scale: Float
  /// The level that stands for 0, in `0...255`.
  package var zeroPoint: Int

  /// Creates parameters.
  ///
  /// - Parameters:
  ///   - scale: The step between levels, above 0.
  ///   - zeroPoint: The level of 0, in `0...255`.
  package init(scale: Float, zeroPoint: Int) {
    self.scale = scale
    self.zeroPoint = zeroPoint
  }

  /// The parameters that spread 256 levels over a calibrated range widened to hold 0, as
  /// ONNX Runtime computes them for `QUInt8`.
  ///
  /// 0 is always exactly representable, so zero padding and a ReLU's floor cost nothing; a range
  /// of only 0 gets scale 1.
  ///
  /// - Parameter range: The calibrated range of the activation.
  package init(uint8Range range: ClosedRange<Float>) {
    let lower = min(range.lowerBound, 0)
    let upper = max(range.upperBound, 0)
    guard upper > lower else {
      self.init(scale: 1, zeroPoint: 0)
      return
    }
    let scale = (upper - lower) / 255
    let zero = (-lower / scale).rounded(.toNearestOrEven)
    self.init(scale: scale, zeroPoint: Int(min(max(zero, 0), 255)))
  }

  /// The range of values the levels stand for: `(0 - zeroPoint) * scale ... (255 - zeroPoint)
  /// * scale`.
  package var representableRange: ClosedRange<Float> {
    Float(-zeroPoint) * scale...Float(255 - zeroPoint) * scale
  }

  /// The level a value quantizes to (`QuantizeLinear`, rounding half to even).
  ///
  /// - Parameter value: The value.
  /// - Returns: The level, saturated to `0...255`.
  package func quantize(_ value: Float) -> UInt8 {
    let level = (value / scale).rounded(.toNearestOrEven) + Float(zeroPoint)
    return UInt8(min(max(level, 0), 255))
  }

  /// The value a level stands for (`DequantizeLinear`).
  ///
  /// - Parameter level: The level.
  /// - Returns: `(level - zeroPoint) * scale`.
  package func dequantize(_ level: UInt8) -> Float {
    Float(Int(level) - zeroPoint) * scale
  }
}
