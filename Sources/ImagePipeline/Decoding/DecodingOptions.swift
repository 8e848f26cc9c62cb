import Foundation

/// Limits and leniency that apply to one decode.
///
/// The defaults suit untrusted input: images above 100 megapixels or 400 MB of decoded pixels are
/// refused from their header before any pixel memory is allocated, files above 256 MiB are not
/// read, and a JPEG whose data ends early is an error.
public struct DecodingOptions: Sendable, Hashable {
  /// The pixel count above which ``ImageDecoder`` refuses an image: 100 megapixels.
  public static let defaultMaximumPixelCount = 100_000_000

  /// The decoded pixel-buffer size above which ``ImageDecoder`` refuses an image: 400 MB, one
  /// 100-megapixel RGBA image.
  public static let defaultMaximumDecodedByteCount = 400_000_000

  /// The file size above which ``ImageDecoder/decode(contentsOf:)`` stops reading: 256 MiB.
  public static let defaultMaximumFileByteCount = 256 << 20

  /// The most scans a progressive JPEG may have before it is refused as hostile.
  ///
  /// Real encoders write at most a few dozen scans; libjpeg-turbo's own TurboJPEG API uses the
  /// same cap of 500 to bound the decode time of crafted files.
  public static let maximumJPEGScanCount = 500

  /// The largest `width * height` accepted, checked from the header before any pixel buffer is
  /// allocated.
  public var maximumPixelCount: Int

  /// The largest decoded pixel buffer accepted (`width * height * channels` bytes), checked
  /// from the header before it is allocated.
  public var maximumDecodedByteCount: Int

  /// The largest file read from a URL; a longer file is refused without reading the rest.
  public var maximumFileByteCount: Int

  /// Whether a JPEG whose data ends before its last row decodes anyway.
  ///
  /// When `true`, libjpeg-turbo fills the rows it could not decode (usually with gray), as
  /// Pillow does with `LOAD_TRUNCATED_IMAGES`. When `false`, such a file throws
  /// ``ImageDecodingError/Code/truncated``.
  public var allowsTruncatedJPEG: Bool

  /// The DCT-domain reduction applied to JPEG files; `.full` by default.
  ///
  /// The pixel-count limit still applies to the stored size.
  package var jpegScale: JPEGScale

  /// The cores one HEIF or AVIF decode may keep busy; the machine's active processor count by
  /// default, at least 1.
  ///
  /// A HEIC file's tiles, and the rows of its HEVC streams, decode side by side; 1 decodes on
  /// the calling thread only (for a server that already decodes one photo per core, say). PNG,
  /// JPEG and WebP always decode on the calling thread.
  public var threadCount: Int

  /// Creates decoding options.
  ///
  /// - Parameters:
  ///   - maximumPixelCount: The largest `width * height` accepted; 100 megapixels by default.
  ///   - allowsTruncatedJPEG: Whether a JPEG that ends early still decodes; `false` by default.
  ///   - maximumDecodedByteCount: The largest decoded pixel buffer; 400 MB by default.
  ///   - maximumFileByteCount: The largest file read from a URL; 256 MiB by default.
  ///   - threadCount: The cores one HEIF or AVIF decode may keep busy; `nil` (the default)
  ///     means the machine's active processor count.
  public init(
    maximumPixelCount: Int = DecodingOptions.defaultMaximumPixelCount,
    allowsTruncatedJPEG: Bool = false,
    maximumDecodedByteCount: Int = DecodingOptions.defaultMaximumDecodedByteCount,
    maximumFileByteCount: Int = DecodingOptions.defaultMaximumFileByteCount,
    threadCount: Int? = nil
  ) {
    self.init(
      maximumPixelCount: maximumPixelCount, allowsTruncatedJPEG: allowsTruncatedJPEG,
      jpegScale: .full, maximumDecodedByteCount: maximumDecodedByteCount,
      maximumFileByteCount: maximumFileByteCount, threadCount: threadCount)
  }

  /// Creates decoding options that decode a JPEG at a DCT-domain reduction.
  package init(
    maximumPixelCount: Int = DecodingOptions.defaultMaximumPixelCount,
    allowsTruncatedJPEG: Bool = false,
    jpegScale: JPEGScale,
    maximumDecodedByteCount: Int = DecodingOptions.defaultMaximumDecodedByteCount,
    maximumFileByteCount: Int = DecodingOptions.defaultMaximumFileByteCount,
    threadCount: Int? = nil
  ) {
    self.threadCount = max(1, threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
    self.maximumPixelCount = maximumPixelCount
    self.maximumDecodedByteCount = maximumDecodedByteCount
    self.maximumFileByteCount = maximumFileByteCount
    self.allowsTruncatedJPEG = allowsTruncatedJPEG
    self.jpegScale = jpegScale
  }
}
