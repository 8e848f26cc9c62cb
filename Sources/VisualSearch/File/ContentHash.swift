/// SHA-256 digests as the index stores them (32 bytes) and shows them (64 hex digits).
enum ContentHash {
  private static let digits = Array("0123456789abcdef".utf8)

  /// 32 bytes as lowercase hex; all zero (unknown) as empty.
  static func hex(_ bytes: [UInt8]) -> String {
    guard bytes.contains(where: { $0 != 0 }) else { return "" }
    var text: [UInt8] = []
    text.reserveCapacity(2 * bytes.count)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// 64 hex digits as 32 bytes; empty as zeros; `nil` for anything else.
  static func bytes(_ hex: String) -> [UInt8]? {
    if hex.isEmpty { return [UInt8](repeating: 0, count: 32) }
    let utf8 = Array(hex.utf8)
    guard utf8.count == 64 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for pair in stride(from: 0, to: 64, by: 2) {
      guard let high = value(utf8[pair]), let low = value(utf8[pair + 1]) else { return nil }
      bytes.append(high << 4 | low)
    }
    return bytes
  }

  private static func value(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
