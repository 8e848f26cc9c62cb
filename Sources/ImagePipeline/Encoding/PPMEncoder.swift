/// Writes a ``RasterImage`` as a binary PPM (`P6`, 8-bit RGB).
///
/// Gray is replicated into the three channels; alpha is dropped (straight alpha, so the color
/// samples are kept as stored), as Pillow's `convert("RGB")` does.
package struct PPMEncoder: Sendable, Hashable {
  /// Creates a PPM encoder.
  package init() {}

  /// Encodes an image.
  ///
  /// - Parameter image: The image to write.
  /// - Returns: The PPM file: the `P6` header, then `width * height * 3` bytes.
  package func encode(_ image: RasterImage) -> [UInt8] {
    var bytes = Array("P6\n\(image.width) \(image.height)\n255\n".utf8)
    bytes.reserveCapacity(bytes.count + image.width * image.height * 3)
    let source = image.pixels
    switch image.format {
    case .rgb:
      bytes += source
    case .rgba:
      for offset in stride(from: 0, to: source.count, by: 4) {
        bytes.append(source[offset])
        bytes.append(source[offset + 1])
        bytes.append(source[offset + 2])
      }
    case .gray, .grayAlpha:
      for offset in stride(from: 0, to: source.count, by: image.format.channelCount) {
        let value = source[offset]
        bytes.append(value)
        bytes.append(value)
        bytes.append(value)
      }
    }
    return bytes
  }
}
