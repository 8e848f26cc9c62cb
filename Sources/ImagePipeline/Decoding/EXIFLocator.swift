import CNative

/// Finds the EXIF block of a PNG, JPEG, WebP, HEIF or AVIF file without decoding it.
///
/// The walks only read within the buffer and stop at the first malformed length, so damaged
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
    case .webp: webpTIFF(in: bytes)
    case .heif, .avif: heifTIFF(in: bytes)
    }
  }

  /// The largest HEIF EXIF block read.
  private static let maximumHEIFBlock = 1 << 20

  /// The primary image's first `Exif` metadata item, read by libheif.
  private static func heifTIFF(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var buffer = cic_buffer()
    var message = CodecStatus.messageBuffer()
    defer { cic_buffer_free(&buffer) }
    let status = cic_heif_exif(
      bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, maximumHEIFBlock,
      &buffer, &message, message.count)
    guard status == CIC_STATUS_OK, let data = buffer.data, buffer.size > 0 else { return nil }
    // Safety: the C target filled `size` bytes of `data`, freed only by the deferred call.
    return Array(UnsafeBufferPointer(start: data, count: buffer.size))
  }

  /// Walks the RIFF chunks of a WebP for `EXIF`.
  ///
  /// Its payload is the TIFF structure, though some writers put `Exif\0\0` before it (as in
  /// JPEG); both are read.
  private static func webpTIFF(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var position = 12
    while position <= bytes.count - 8 {
      let length =
        Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16
        | Int(bytes[position + 7]) << 24
      let start = position + 8
      guard length <= bytes.count - start else { return nil }
      if bytes[position..<(position + 4)].elementsEqual(webpEXIFType) {
        let data = bytes[start..<(start + length)]
        return Array(data.starts(with: exifHeader) ? data.dropFirst(exifHeader.count) : data)
      }
      // Chunks are padded to an even length.
      position = start + length + (length & 1)
    }
    return nil
  }

  private static let webpEXIFType: [UInt8] = Array("EXIF".utf8)

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

  /// Walks PNG chunks to IEND for `eXIf`, which may come before or after the image data.
  ///
  /// Without one, an uncompressed ImageMagick `Raw profile type exif` text chunk (hex-encoded
  /// EXIF) is used, as Pillow does.
  private static func pngTIFF(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    var rawProfile: [UInt8]?
    var position = 8
    while position <= bytes.count - 12 {
      let length =
        Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
        | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      let type = bytes[(position + 4)..<(position + 8)]
      let start = position + 8
      guard length <= bytes.count - start - 4 else { break }
      let data = bytes[start..<(start + length)]
      if type.elementsEqual(eXIfType) { return Array(data) }
      if type.elementsEqual(iendType) { break }
      if rawProfile == nil, type.elementsEqual(tEXtType),
        data.starts(with: rawProfileKeyword)
      {
        rawProfile = Array(data.dropFirst(rawProfileKeyword.count))
      }
      position = start + length + 4
    }
    return rawProfile.flatMap(tiff(inRawProfile:))
  }

  private static let tEXtType: [UInt8] = Array("tEXt".utf8)
  private static let rawProfileKeyword: [UInt8] = Array("Raw profile type exif\0".utf8)

  /// Decodes ImageMagick's raw profile text: a newline, the profile name, a newline, the decimal
  /// byte count, then hex digits split over lines; the bytes are `Exif\0\0` and the TIFF block.
  static func tiff(inRawProfile text: [UInt8]) -> [UInt8]? {
    let lines = text.drop { $0 == 0x0A }
      .split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
    guard lines.count == 3,
      let count = Int(String(decoding: lines[1].filter { $0 != 0x20 }, as: UTF8.self)),
      count > exifHeader.count, count <= text.count / 2
    else { return nil }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(count)
    var high: UInt8?
    for character in lines[2] where decoded.count < count {
      let nibble: UInt8
      switch character {
      case 0x30...0x39: nibble = character - 0x30
      case 0x61...0x66: nibble = character - 0x61 + 10
      case 0x41...0x46: nibble = character - 0x41 + 10
      case 0x0A, 0x0D, 0x20: continue
      default: return nil
      }
      if let first = high {
        decoded.append(first << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    guard decoded.count == count, decoded.starts(with: exifHeader) else { return nil }
    return Array(decoded.dropFirst(exifHeader.count))
  }
}
