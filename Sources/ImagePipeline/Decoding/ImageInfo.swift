/// What an image's header says, read by ``ImageDecoder/inspect(_:)-(Data)`` without decoding
/// pixels.
public struct ImageInfo: Sendable, Hashable {
  /// The container format, recognized from magic bytes.
  public var format: ImageFormat
  /// The stored width in pixels, before ``orientation`` is applied.
  public var width: Int
  /// The stored height in pixels, before ``orientation`` is applied.
  public var height: Int
  /// The channel layout that ``ImageDecoder/decode(_:)-(Data)`` produces for this image.
  public var pixelFormat: PixelFormat
  /// Bits per sample as stored in the file (PNG 1, 2, 4, 8 or 16; JPEG 8).
  public var bitDepth: Int
  /// The EXIF orientation, ``ImageOrientation/up`` when the file has none.
  public var orientation: ImageOrientation

  /// Creates image information.
  ///
  /// - Parameters:
  ///   - format: The container format.
  ///   - width: The stored width in pixels.
  ///   - height: The stored height in pixels.
  ///   - pixelFormat: The channel layout of the decoded image.
  ///   - bitDepth: Bits per sample as stored in the file.
  ///   - orientation: The EXIF orientation.
  public init(
    format: ImageFormat, width: Int, height: Int, pixelFormat: PixelFormat, bitDepth: Int,
    orientation: ImageOrientation
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.bitDepth = bitDepth
    self.orientation = orientation
  }

  /// Whether the decoded image has an alpha channel (PNG alpha or `tRNS` transparency).
  public var hasAlpha: Bool { pixelFormat.hasAlpha }

  /// The width once ``orientation`` is applied.
  public var displayWidth: Int { orientation.swapsDimensions ? height : width }

  /// The height once ``orientation`` is applied.
  public var displayHeight: Int { orientation.swapsDimensions ? width : height }
}
