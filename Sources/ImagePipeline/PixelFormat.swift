/// The channel layout of an 8-bit ``RasterImage``.
///
/// Pixels are stored interleaved, row by row, one byte per channel.
public enum PixelFormat: Sendable, Hashable, CaseIterable {
  /// One luminance channel.
  case gray
  /// Luminance followed by straight (not premultiplied) alpha.
  case grayAlpha
  /// Red, green and blue.
  case rgb
  /// Red, green, blue and straight (not premultiplied) alpha.
  case rgba

  /// The number of bytes one pixel occupies.
  public var channelCount: Int {
    switch self {
    case .gray: 1
    case .grayAlpha: 2
    case .rgb: 3
    case .rgba: 4
    }
  }

  /// Whether the format carries an alpha channel.
  public var hasAlpha: Bool {
    self == .grayAlpha || self == .rgba
  }
}
