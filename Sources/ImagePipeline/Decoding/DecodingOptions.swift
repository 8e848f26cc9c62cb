/// Limits and leniency that apply to one decode.
///
/// The defaults suit untrusted input: images above 100 megapixels are refused from their header
/// before any pixel memory is allocated, and a JPEG whose data ends early is an error.
public struct DecodingOptions: Sendable, Hashable {
  /// The pixel count above which ``ImageDecoder`` refuses an image: 100 megapixels.
  public static let defaultMaximumPixelCount = 100_000_000

  /// The most scans a progressive JPEG may have before it is refused as hostile.
  ///
  /// Real encoders write at most a few dozen scans; libjpeg-turbo's own TurboJPEG API uses the
  /// same cap of 500 to bound the decode time of crafted files.
  public static let maximumJPEGScanCount = 500

  /// The largest `width * height` accepted, checked from the header before any pixel buffer is
  /// allocated.
  public var maximumPixelCount: Int

  /// Whether a JPEG whose data ends before its last row decodes anyway.
  ///
  /// When `true`, libjpeg-turbo fills the rows it could not decode (usually with gray), as
  /// Pillow does with `LOAD_TRUNCATED_IMAGES`. When `false`, such a file throws
  /// ``ImageDecodingError/Code/truncated``.
  public var allowsTruncatedJPEG: Bool

  /// The DCT-domain reduction applied to JPEG files; ``JPEGScale/full`` by default.
  ///
  /// The pixel-count limit still applies to the stored size.
  public var jpegScale: JPEGScale

  /// Creates decoding options.
  ///
  /// - Parameters:
  ///   - maximumPixelCount: The largest `width * height` accepted; 100 megapixels by default.
  ///   - allowsTruncatedJPEG: Whether a JPEG that ends early still decodes; `false` by default.
  ///   - jpegScale: The DCT-domain reduction for JPEG files; ``JPEGScale/full`` by default.
  public init(
    maximumPixelCount: Int = DecodingOptions.defaultMaximumPixelCount,
    allowsTruncatedJPEG: Bool = false,
    jpegScale: JPEGScale = .full
  ) {
    self.maximumPixelCount = maximumPixelCount
    self.allowsTruncatedJPEG = allowsTruncatedJPEG
    self.jpegScale = jpegScale
  }
}
