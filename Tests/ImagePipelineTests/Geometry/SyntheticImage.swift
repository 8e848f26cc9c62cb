import ImagePipeline

/// Small images with a distinct value in every sample, so that tests can tell where each pixel went.
enum SyntheticImage {
  /// A stored image whose sample `c` of pixel `(x, y)` is `(y * width + x) * channels + c + 1`,
  /// wrapping at 256 for large images.
  static func make(
    width: Int, height: Int, format: PixelFormat = .rgb, orientation: ImageOrientation = .up
  ) throws -> RasterImage {
    let count = width * height * format.channelCount
    let pixels = (0..<count).map { UInt8(truncatingIfNeeded: $0 + 1) }
    return try RasterImage(
      width: width, height: height, format: format, pixels: pixels, orientation: orientation)
  }

  /// The stored coordinate that display pixel `(dx, dy)` reads, straight from the EXIF table of
  /// Docs/Design.md section 1; written independently of the library's walk.
  static func storedCoordinate(
    _ orientation: ImageOrientation, dx: Int, dy: Int, width w: Int, height h: Int
  ) -> (x: Int, y: Int) {
    switch orientation {
    case .up: (dx, dy)
    case .upMirrored: (w - 1 - dx, dy)
    case .down: (w - 1 - dx, h - 1 - dy)
    case .downMirrored: (dx, h - 1 - dy)
    case .leftMirrored: (dy, dx)
    case .right: (dy, h - 1 - dx)
    case .rightMirrored: (w - 1 - dy, h - 1 - dx)
    case .left: (w - 1 - dy, dx)
    }
  }

  /// The samples of display pixel `(dx, dy)` of `image` shown upright with `orientation`.
  static func displaySamples(
    _ image: RasterImage, _ orientation: ImageOrientation, dx: Int, dy: Int
  ) -> [UInt8] {
    let stored = storedCoordinate(
      orientation, dx: dx, dy: dy, width: image.width, height: image.height)
    let channels = image.format.channelCount
    let start = (stored.y * image.width + stored.x) * channels
    return Array(image.pixels[start..<(start + channels)])
  }

  /// The samples of pixel `(x, y)` of an upright image.
  static func samples(_ image: RasterImage, x: Int, y: Int) -> [UInt8] {
    let channels = image.format.channelCount
    let start = (y * image.width + x) * channels
    return Array(image.pixels[start..<(start + channels)])
  }
}
