extension RasterImage {
  /// Returns the pixels inside a rectangle, keeping the format and orientation.
  ///
  /// The rectangle is in stored pixels; apply ``oriented(_:)`` first to crop the upright picture.
  ///
  /// - Parameter rect: The pixels to keep.
  /// - Returns: An image of `rect.width x rect.height` pixels.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the rectangle is empty or
  ///   reaches outside the image.
  public func cropped(to rect: PixelRect) throws(ImageDecodingError) -> RasterImage {
    guard rect.fits(imageWidth: width, imageHeight: height) else {
      throw ImageDecodingError(
        .invalidArgument, "crop rectangle \(rect) does not fit a \(width)x\(height) image")
    }
    if rect == PixelRect(width: width, height: height) { return self }
    let channels = format.channelCount
    let rowBytes = rect.width * channels
    var kept = [UInt8]()
    kept.reserveCapacity(rowBytes * rect.height)
    for row in rect.y..<(rect.y + rect.height) {
      let start = row * bytesPerRow + rect.x * channels
      kept.append(contentsOf: pixels[start..<(start + rowBytes)])
    }
    var result = RasterImage(
      validatedWidth: rect.width, height: rect.height, format: format, pixels: kept)
    result.orientation = orientation
    return result
  }

  /// Keeps only the pixels inside a rectangle, as ``cropped(to:)`` does.
  ///
  /// - Parameter rect: The pixels to keep.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the rectangle is empty or
  ///   reaches outside the image.
  public mutating func crop(to rect: PixelRect) throws(ImageDecodingError) {
    self = try cropped(to: rect)
  }
}
