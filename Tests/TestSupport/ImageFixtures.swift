/// Small synthetic pixel data that tests turn into images and files at run time.
public enum ImageFixtures {
  /// Interleaved 8-bit samples of a smooth, asymmetric pattern: every channel varies differently
  /// along x and y, so flips, rotations and channel swaps all change it, and JPEG compresses it
  /// with little loss.
  ///
  /// - Parameters:
  ///   - width: Pixels per row.
  ///   - height: Rows.
  ///   - channels: Samples per pixel, 1...4.
  /// - Returns: `width * height * channels` bytes, row by row.
  public static func gradient(width: Int, height: Int, channels: Int) -> [UInt8] {
    var samples: [UInt8] = []
    samples.reserveCapacity(width * height * channels)
    for y in 0..<height {
      for x in 0..<width {
        for channel in 0..<channels {
          let value: Int
          switch channel {
          case 0: value = 255 * x / max(width - 1, 1)
          case 1: value = 255 * y / max(height - 1, 1)
          case 2: value = 255 * (x + 2 * y) / max(width + 2 * height - 3, 1)
          default: value = 255 - 200 * y / max(height - 1, 1)
          }
          samples.append(UInt8(clamping: value))
        }
      }
    }
    return samples
  }

  /// Interleaved samples where every byte differs from its neighbors (a hash of its position),
  /// for lossless round trips that must be bit-exact.
  ///
  /// - Parameters:
  ///   - width: Pixels per row.
  ///   - height: Rows.
  ///   - channels: Samples per pixel, 1...4.
  /// - Returns: `width * height * channels` bytes.
  public static func noise(width: Int, height: Int, channels: Int) -> [UInt8] {
    (0..<(width * height * channels)).map { index in
      UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13)
    }
  }

  /// The smallest PNG whose IHDR claims the given size: signature, IHDR (8-bit RGB), a tiny
  /// IDAT that cannot hold the image, and IEND, all with valid CRCs.
  ///
  /// - Parameters:
  ///   - width: The claimed width.
  ///   - height: The claimed height.
  /// - Returns: The file's bytes.
  public static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    var ihdr: [UInt8] = []
    ihdr += bigEndian(width)
    ihdr += bigEndian(height)
    ihdr += [8, 2, 0, 0, 0]
    bytes += chunk("IHDR", ihdr)
    // zlib stream of one stored, empty, final block.
    bytes += chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01])
    bytes += chunk("IEND", [])
    return bytes
  }

  /// A PNG chunk: length, type, data and CRC-32.
  ///
  /// - Parameters:
  ///   - type: The four-letter chunk type.
  ///   - data: The chunk data.
  /// - Returns: The chunk's bytes.
  public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
  }

  /// The CRC-32 (ISO-HDLC, as in PNG and zlib) of some bytes.
  ///
  /// - Parameter bytes: The bytes to check.
  /// - Returns: The checksum.
  public static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 {
        crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
      }
    }
    return crc ^ 0xFFFF_FFFF
  }

  /// A 32-bit value as four big-endian bytes.
  ///
  /// - Parameter value: The value.
  /// - Returns: Its bytes, most significant first.
  public static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }
}
