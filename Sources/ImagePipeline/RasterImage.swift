/// An 8-bit image held in memory: interleaved pixels, row by row, no padding between rows.
///
/// A value type: copies share storage until one is mutated. The ``orientation`` records how the
/// stored pixels must be turned to be upright; decoders fill it from EXIF, and
/// ``oriented(_:)`` returns an upright copy whose orientation is ``ImageOrientation/up``.
///
/// The size, format and pixels are fixed when the image is made, and the initializer checks them
/// against each other, so ``pixels`` always holds exactly
/// `width * height * format.channelCount` bytes: the resampler and the encoders read the buffer
/// by that size. To change pixels, make a new image; only ``orientation`` can be set in place.
public struct RasterImage: Sendable, Hashable {
  /// The stored width in pixels.
  public let width: Int
  /// The stored height in pixels.
  public let height: Int
  /// The channel layout of ``pixels``.
  public let format: PixelFormat
  /// The interleaved 8-bit samples: `height` rows of `width * format.channelCount` bytes.
  ///
  /// Read-only: the count is checked once, when the image is made, and code that reads the
  /// buffer through pointers relies on it.
  public private(set) var pixels: [UInt8]
  /// How the stored pixels must be turned to show the picture upright.
  public var orientation: ImageOrientation

  /// Creates an image from interleaved pixels.
  ///
  /// - Parameters:
  ///   - width: The width in pixels, at least 1.
  ///   - height: The height in pixels, at least 1.
  ///   - format: The channel layout.
  ///   - pixels: Exactly `width * height * format.channelCount` bytes.
  ///   - orientation: How the pixels must be turned to be upright; ``ImageOrientation/up`` by default.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the sizes do not match.
  public init(
    width: Int, height: Int, format: PixelFormat, pixels: [UInt8],
    orientation: ImageOrientation = .up
  ) throws(ImageDecodingError) {
    guard width > 0, height > 0 else {
      throw ImageDecodingError(.invalidArgument, "image size \(width)x\(height) is empty")
    }
    try Self.checkByteCount(pixels.count, width: width, height: height, format: format)
    self.width = width
    self.height = height
    self.format = format
    self.pixels = pixels
    self.orientation = orientation
  }

  /// The width once ``orientation`` is applied.
  public var displayWidth: Int { orientation.swapsDimensions ? height : width }

  /// The height once ``orientation`` is applied.
  public var displayHeight: Int { orientation.swapsDimensions ? width : height }

  /// Whether the image carries an alpha channel.
  public var hasAlpha: Bool { format.hasAlpha }

  /// The number of bytes in one row of ``pixels``.
  public var bytesPerRow: Int { width * format.channelCount }

  /// The byte count of a `width` x `height` image of `format`, or `nil` when the product overflows.
  static func byteCount(width: Int, height: Int, format: PixelFormat) -> Int? {
    let (area, areaOverflow) = width.multipliedReportingOverflow(by: height)
    let (count, countOverflow) = area.multipliedReportingOverflow(by: format.channelCount)
    return areaOverflow || countOverflow ? nil : count
  }

  /// Checks that `count` bytes make a `width` x `height` image of `format`.
  ///
  /// The initializer and every pointer boundary (encoders, resampler) call this, so a pixel
  /// buffer that disagrees with its size fails with an error instead of being read past its end.
  static func checkByteCount(
    _ count: Int, width: Int, height: Int, format: PixelFormat
  ) throws(ImageDecodingError) {
    guard width > 0, height > 0,
      let expected = byteCount(width: width, height: height, format: format), expected == count
    else {
      throw ImageDecodingError(
        .invalidArgument, "\(count) bytes do not make a \(width)x\(height) \(format) image")
    }
  }

  /// Whether ``pixels`` holds exactly the bytes that ``width``, ``height`` and ``format`` say.
  var hasConsistentStorage: Bool {
    Self.byteCount(width: width, height: height, format: format) == pixels.count
  }
}
