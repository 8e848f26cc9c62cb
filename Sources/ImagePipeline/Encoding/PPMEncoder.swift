/// Writes a ``RasterImage`` as a binary PPM (`P6`, 8-bit RGB).
///
/// Gray is replicated into the three channels; alpha is dropped (straight alpha, so the color
/// samples are kept as stored), as Pillow's `convert("RGB")` does.
public struct PPMEncoder: Sendable, Hashable {
  /// Creates a PPM encoder.
  public init() {}

  /// Encodes an image.
  ///
  /// - Parameter image: The image to write.
  /// - Returns: The PPM file: the `P6` header, then `width * height * 3` bytes.
  public func encode(_ image: RasterImage) -> [UInt8] {
    var bytes = Array("P6\n\(image.width) \(image.height)\n255\n".utf8)
    let pixelCount = image.width * image.height
    bytes.reserveCapacity(bytes.count + pixelCount * 3)
    let channels = image.format.channelCount
    let source = image.pixels
    switch image.format {
    case .rgb:
      bytes += source
    case .rgba:
      for pixel in 0..<pixelCount {
        let offset = pixel * channels
        bytes += source[offset..<offset + 3]
      }
    case .gray, .grayAlpha:
      for pixel in 0..<pixelCount {
        let value = source[pixel * channels]
        bytes += [value, value, value]
      }
    }
    return bytes
  }
}
