/// The per-channel affine map from pixel levels (0...255) to model input values:
/// `value = level * scale + bias`.
///
/// Channels are always given red, green, blue, whatever the ``ChannelOrder`` of the input; the
/// map is applied while the planes are written, so it costs no extra pass.
public struct PixelNormalization: Sendable, Hashable {
  /// The factor of each channel, red, green, blue.
  public var scale: SIMD3<Float>
  /// The offset of each channel, red, green, blue.
  public var bias: SIMD3<Float>

  /// Creates the map `level * scale + bias`.
  ///
  /// - Parameters:
  ///   - scale: The factor of each channel, red, green, blue.
  ///   - bias: The offset of each channel, red, green, blue.
  public init(scale: SIMD3<Float>, bias: SIMD3<Float>) {
    self.scale = scale
    self.bias = bias
  }

  /// Creates the map `(level - mean) / standardDeviation`, with levels in 0...255.
  ///
  /// - Parameters:
  ///   - mean: The mean of each channel in levels 0...255, red, green, blue.
  ///   - standardDeviation: The standard deviation of each channel in levels, not zero.
  public init(mean: SIMD3<Float>, standardDeviation: SIMD3<Float>) {
    self.init(scale: 1 / standardDeviation, bias: -mean / standardDeviation)
  }

  /// Levels as they are, 0...255.
  public static let identity = PixelNormalization(scale: .one, bias: .zero)

  /// Levels divided by 255, giving 0...1.
  public static let unitRange = PixelNormalization(scale: SIMD3(repeating: 1 / 255), bias: .zero)

  /// `(level - 127) / 128`, what EfficientNet-Lite was trained with (not the ImageNet statistics).
  public static let efficientNetLite = PixelNormalization(
    mean: SIMD3(repeating: 127), standardDeviation: SIMD3(repeating: 128))

  /// The ImageNet statistics of torchvision: mean (0.485, 0.456, 0.406) and standard deviation
  /// (0.229, 0.224, 0.225) of levels scaled to 0...1.
  public static let imageNet = PixelNormalization(
    mean: SIMD3(0.485, 0.456, 0.406) * 255, standardDeviation: SIMD3(0.229, 0.224, 0.225) * 255)

  /// Whether every factor and offset is finite and every factor non-zero.
  public var isValid: Bool {
    (0..<3).allSatisfy { scale[$0].isFinite && bias[$0].isFinite && scale[$0] != 0 }
  }
}
