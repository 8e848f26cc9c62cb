/// How calibration turns an activation's histogram into the range its 8-bit values cover.
///
/// Both methods clip rare outliers that plain minimum and maximum would stretch the range for,
/// which costs the common values their resolution.
public enum CalibrationMethod: Sendable, Hashable, CustomStringConvertible {
  /// The range that keeps the given percentage of the values, cutting half the rest from each
  /// side (ONNX Runtime's `Percentile` calibrator cuts the same way); `99.99` keeps all but one
  /// value in ten thousand.
  case percentile(Double)
  /// The symmetric bound on `|x|` whose 128-level quantization of the histogram is closest to
  /// it in Kullback-Leibler divergence, as TensorRT's and ONNX Runtime's `Entropy`
  /// calibrators choose it, cut to the values seen.
  case entropy

  /// The default percentile, 99.99 %.
  public static let defaultPercentile = 99.99

  /// The method's name: `percentile` or `entropy`.
  public var name: String {
    switch self {
    case .percentile: "percentile"
    case .entropy: "entropy"
    }
  }

  /// The name, with the percentage for ``percentile(_:)``, such as `percentile 99.99`.
  public var description: String {
    switch self {
    case .percentile(let percentage): "percentile \(percentage)"
    case .entropy: "entropy"
    }
  }
}
