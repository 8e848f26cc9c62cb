/// Finds the EXIF block of a PNG or JPEG file without decoding it.
///
/// Both walks only read within the buffer and stop at the first malformed length, so damaged
/// files give `nil` (no EXIF) rather than an error.
enum EXIFLocator {
  private static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
  private static let eXIfType: [UInt8] = [0x65, 0x58, 0x49, 0x66]
  private static let iendType: [UInt8] = [0x49, 0x45, 0x4E, 0x44]

  /// The TIFF structure of the file's EXIF block, if it has one.
  ///
  /// - Parameters:
  ///   - bytes: The whole file.
  ///   - format: The file's format.
  /// - Returns: A copy of the TIFF bytes (starting with `II` or `MM`), or `nil`.
  static func tiff(in bytes: UnsafeRawBufferPointer, format: ImageFormat) -> [UInt8]? {
    switch format {
    case .jpeg: jpegTIFF(in: bytes)
    case .png: pngTIFF(in: bytes)
    }
  }

  /// Walks JPEG marker segments up to the first SOS; the first APP1 `Exif\0\0` segment wins, as
  /// in Pillow and libexif.
  private static func jpegTIFF(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var position = 2
    while position < bytes.count - 3 {
      guard bytes[position] == 0xFF else {
        // Junk between segments: libjpeg skips it with a warning, so the walk does too.
        position += 1
        continue
      }
      let marker = bytes[position + 1]
      switch marker {
      case 0xFF:
        position += 1
        continue
      case 0x01, 0xD0...0xD8:
        position += 2
        continue
      case 0xD9, 0xDA:
        return nil
      default:
        break
      }
      let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      let start = position + 4
      let end = position + 2 + length
      guard length >= 2, end <= bytes.count else { return nil }
      if marker == 0xE1, end - start >= exifHeader.count + 8,
        bytes[start..<start + exifHeader.count].elementsEqual(exifHeader)
      {
        return Array(bytes[(start + exifHeader.count)..<end])
      }
      position = end
    }
    return nil
  }

  /// Walks PNG chunks to IEND; `eXIf` may come before or after the image data.
  private static func pngTIFF(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var position = 8
    while position <= bytes.count - 12 {
      let length =
        Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
        | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      let type = bytes[(position + 4)..<(position + 8)]
      let start = position + 8
      guard length <= bytes.count - start - 4 else { return nil }
      if type.elementsEqual(eXIfType) {
        return Array(bytes[start..<(start + length)])
      }
      if type.elementsEqual(iendType) { return nil }
      position = start + length + 4
    }
    return nil
  }
}
