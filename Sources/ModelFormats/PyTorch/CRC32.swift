import NeuralCore

/// The CRC-32 of zip archives (polynomial 0xEDB88320, reflected).
enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 {
      value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
    }
    return value
  }

  /// The checksum of a range of bytes.
  ///
  /// - Parameters:
  ///   - bytes: The buffer.
  ///   - range: The bytes to check, inside `bytes`.
  /// - Returns: The CRC-32.
  static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    table.withUnsafeBufferPointer { table in
      bytes.withUnsafeBufferPointer { bytes in
        // Safety: range lies inside bytes (callers check it) and table has 256 entries, indexed
        // by a byte.
        for index in range {
          crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
        }
      }
    }
    return ~crc
  }
}
