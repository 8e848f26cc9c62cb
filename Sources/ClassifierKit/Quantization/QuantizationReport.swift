public import ModelFormats

/// How a classifier was quantized and how closely the int8 model follows the float32 one.
public struct QuantizationReport: Sendable, Hashable {
  /// How activation ranges were calibrated.
  public var method: CalibrationMethod
  /// The photos calibration and the agreement ran on.
  public var calibrationPhotoCount: Int
  /// The share of those photos, from 0 to 1, whose top class is the same for the int8 and the
  /// float32 model, both run by NeuralCore.
  public var topOneAgreement: Double
  /// The layers (`Conv`, `Gemm`, `MatMul`) stored in int8, by name, in graph order.
  public var quantizedLayers: [String]
  /// The layers kept in float32 because quantizing them cost agreement, by name.
  public var floatLayers: [String]
  /// The photos that could not be read, and why.
  public var skipped: [SkippedPhoto]

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - method: How activation ranges were calibrated.
  ///   - calibrationPhotoCount: The photos calibration ran on.
  ///   - topOneAgreement: The share of photos whose top class the int8 model keeps.
  ///   - quantizedLayers: The layers stored in int8.
  ///   - floatLayers: The layers kept in float32.
  ///   - skipped: The photos left out, and why.
  public init(
    method: CalibrationMethod, calibrationPhotoCount: Int, topOneAgreement: Double,
    quantizedLayers: [String], floatLayers: [String], skipped: [SkippedPhoto]
  ) {
    self.method = method
    self.calibrationPhotoCount = calibrationPhotoCount
    self.topOneAgreement = topOneAgreement
    self.quantizedLayers = quantizedLayers
    self.floatLayers = floatLayers
    self.skipped = skipped
  }
}
