import CatalogClient
import Foundation

/// Draws typed values from the fuzzer's bytes; past the end every read is zero.
struct ByteStream {
  private let bytes: [UInt8]
  private var position = 0

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  mutating func byte() -> UInt8 {
    guard position < bytes.count else {
      return 0
    }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
    var value: T = 0
    for _ in 0..<(T.bitWidth / 8) {
      value = value << 8 | T(truncatingIfNeeded: byte())
    }
    return value
  }

  mutating func rest() -> [UInt8] {
    defer { position = bytes.count }
    return position < bytes.count ? Array(bytes[position...]) : []
  }

  /// One value of any literal type; dates stay in Edm.DateTime's range (years 1 through 9999)
  /// at whole milliseconds, the precision the encoder writes.
  mutating func value() -> ODataValue {
    switch byte() % 12 {
    case 0: return .null
    case 1: return .boolean(byte() & 1 == 1)
    case 2: return .int32(integer(Int32.self))
    case 3: return .int64(integer(Int64.self))
    case 4:
      let significand = Decimal(integer(UInt64.self))
      let exponent = Int(Int8(truncatingIfNeeded: byte())) / 4
      let sign: FloatingPointSign = byte() & 1 == 1 ? .minus : .plus
      return .decimal(Decimal(sign: sign, exponent: exponent, significand: significand))
    case 5: return .double(Double(bitPattern: integer(UInt64.self)))
    case 6: return .single(Float(bitPattern: integer(UInt32.self)))
    case 7:
      let raw = (0..<16).map { _ in byte() }
      let uuid = UUID(
        uuid: (
          raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9],
          raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
        ))
      return .guid(uuid)
    case 8, 9:
      let milliseconds =
        CivilTime.firstMillisecond
        + Int64(
          integer(UInt64.self) % UInt64(CivilTime.lastMillisecond - CivilTime.firstMillisecond))
      let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
      return byte() & 1 == 0 ? .dateTime(date) : .dateTimeOffset(date)
    default:
      return .string(String(decoding: rest(), as: UTF8.self))
    }
  }
}
