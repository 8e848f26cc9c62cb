import Foundation
import ImagePipeline
import TestSupport
import Testing

/// EXIF orientation parsing, on JPEGs whose APP1 block is written by hand.
@Suite struct EXIFTests {
  private func decodeOrientation(exif: [UInt8]) throws -> ImageOrientation {
    let image = try RasterImage(
      width: 8, height: 8, format: .gray,
      pixels: ImageFixtures.gradient(width: 8, height: 8, channels: 1))
    let encoded = try JPEGEncoder(exif: exif).encode(image)
    let decoded = try ImageDecoder().decode(encoded)
    #expect(try ImageDecoder().inspect(encoded).orientation == decoded.orientation)
    return decoded.orientation
  }

  /// A TIFF block with IFD0 at `ifdOffset` holding the given 12-byte entries.
  private func tiff(bigEndian: Bool, ifdOffset: UInt32 = 8, entries: [[UInt8]]) -> [UInt8] {
    func u16(_ value: UInt16) -> [UInt8] {
      bigEndian
        ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
    func u32(_ value: UInt32) -> [UInt8] {
      bigEndian
        ? u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF))
        : u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16))
    }
    var bytes: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(ifdOffset)
    bytes += [UInt8](repeating: 0, count: max(0, Int(ifdOffset) - 8))
    bytes += u16(UInt16(entries.count))
    for entry in entries { bytes += entry }
    return bytes + u32(0)
  }

  private func entry(bigEndian: Bool, tag: UInt16, type: UInt16, count: UInt32, value: UInt32)
    -> [UInt8]
  {
    let u16: (UInt16) -> [UInt8] = { value in
      bigEndian
        ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
    let u32: (UInt32) -> [UInt8] = { value in
      bigEndian
        ? u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF))
        : u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16))
    }
    // A SHORT value sits in the first two bytes of the value field.
    let field = type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value)
    return u16(tag) + u16(type) + u32(count) + field
  }

  @Test(arguments: [false, true])
  func readsOrientationInBothByteOrders(bigEndian: Bool) throws {
    for value in 1...8 {
      let exif = tiff(
        bigEndian: bigEndian,
        entries: [
          entry(bigEndian: bigEndian, tag: 0x010F, type: 2, count: 4, value: 0x4142_4300),
          entry(bigEndian: bigEndian, tag: 0x0112, type: 3, count: 1, value: UInt32(value)),
        ])
      #expect(try decodeOrientation(exif: exif).rawValue == UInt8(value))
    }
  }

  @Test func readsALongOrientationAndAnIFDAfterPadding() throws {
    let exif = tiff(
      bigEndian: true, ifdOffset: 20,
      entries: [entry(bigEndian: true, tag: 0x0112, type: 4, count: 1, value: 6)])
    #expect(try decodeOrientation(exif: exif) == .right)
  }

  @Test func zeroAndUnknownValuesMeanUp() throws {
    for value: UInt32 in [0, 9, 255, 0xFFFF] {
      let exif = tiff(
        bigEndian: false,
        entries: [entry(bigEndian: false, tag: 0x0112, type: 3, count: 1, value: value)])
      #expect(try decodeOrientation(exif: exif) == .up)
    }
  }

  @Test func malformedEXIFNeverFailsTheDecode() throws {
    let valid = tiff(
      bigEndian: false, entries: [entry(bigEndian: false, tag: 0x0112, type: 3, count: 1, value: 3)]
    )
    var badOrder = valid
    badOrder[0] = 0x4A
    var badMagic = valid
    badMagic[2] = 43
    var offsetOutside = valid
    offsetOutside[4] = 0xF0
    var hugeCount = valid
    hugeCount[8] = 0xFF
    hugeCount[9] = 0xFF
    var wrongType = valid
    wrongType[12] = 7
    var zeroCount = valid
    zeroCount[14] = 0
    let cases: [(String, [UInt8])] = [
      ("empty", []), ("short", Array(valid.prefix(6))), ("bad byte order", badOrder),
      ("bad magic", badMagic), ("IFD outside", offsetOutside), ("huge entry count", hugeCount),
      ("wrong type", wrongType), ("zero count", zeroCount), ("cut entry", Array(valid.prefix(16))),
    ]
    #expect(try decodeOrientation(exif: valid) == .down)
    for (name, exif) in cases {
      #expect(try decodeOrientation(exif: exif) == .up, "\(name)")
    }
  }

  @Test func pngRawProfileTextChunkGivesOrientation() throws {
    let image = try RasterImage(width: 2, height: 2, format: .gray, pixels: [1, 2, 3, 4])
    let png = try PNGEncoder().encode(image)
    let exif =
      [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
      + tiff(
        bigEndian: true, entries: [entry(bigEndian: true, tag: 0x0112, type: 3, count: 1, value: 8)]
      )
    let hex = exif.map { String(format: "%02x", $0) }.joined()
    func withText(_ text: String) -> [UInt8] {
      // Insert the text chunk right after IHDR (8-byte signature + 25-byte IHDR chunk).
      let chunk = ImageFixtures.chunk("tEXt", Array("Raw profile type exif\0\(text)".utf8))
      return Array(png.prefix(33)) + chunk + Array(png.dropFirst(33))
    }
    let valid = withText("\nexif\n      \(exif.count)\n\(hex)\n")
    #expect(try ImageDecoder().decode(valid).orientation == .left)
    for broken in ["\nexif\n  999\n\(hex)\n", "\nexif\n  \(exif.count)\nzz\(hex)\n", "exif"] {
      #expect(try ImageDecoder().decode(withText(broken)).orientation == .up, "\(broken)")
    }
  }
}
