/// A container format that ``ImageDecoder`` recognizes from the file's leading bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
  /// Portable Network Graphics.
  case png
  /// JPEG (JFIF or EXIF).
  case jpeg
  /// WebP (lossy, lossless, with alpha or animated), in its RIFF container.
  case webp

  /// Recognizes the format from magic bytes, never from a file name.
  ///
  /// - Parameter bytes: The start of the file; twelve bytes are enough.
  /// - Returns: The format, or `nil` when the bytes match no supported format.
  public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
    let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    if bytes.starts(with: pngSignature) { return .png }
    if bytes.starts(with: [0xFF, 0xD8, 0xFF] as [UInt8]) { return .jpeg }
    // RIFF, a 4-byte size, WEBP.
    if bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WEBP".utf8)) {
      return .webp
    }
    return nil
  }
}
