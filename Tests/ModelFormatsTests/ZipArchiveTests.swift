import Testing

@testable import ModelFormats

/// The zip reader's CRC-32 check against an archive Python's `zipfile` wrote (one stored entry,
/// "The quick brown fox jumps over the lazy dog", whose CRC-32 is 0x414FA339).
@Suite struct ZipArchiveTests {
  static let archive: [UInt8] = {
    let hex =
      "504b03041400000000000000215c39a34f412b0000002b0000000e000000617263686976652f646174612f30"
      + "54686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f67"
      + "504b010214031400000000000000215c39a34f412b0000002b0000000e000000000000000000000080010000"
      + "0000617263686976652f646174612f30504b050600000000010001003c000000570000000000"
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    return bytes
  }()

  @Test func anIntactEntryPassesItsChecksum() throws {
    let zip = try ZipArchive(Self.archive)
    let entry = try #require(zip.entries.first)
    #expect(entry.name == "archive/data/0")
    #expect(entry.crc32 == 0x414F_A339)
    let range = try zip.dataRange(of: entry)
    #expect(String(decoding: Self.archive[range], as: UTF8.self).hasPrefix("The quick brown fox"))
  }

  @Test func aFlippedByteFailsTheChecksum() throws {
    var damaged = Self.archive
    damaged[50] ^= 0x01
    let zip = try ZipArchive(damaged)
    let entry = try #require(zip.entries.first)
    let error = #expect(throws: ModelFormatsError.self) { try zip.dataRange(of: entry) }
    #expect(error?.message.contains("CRC-32") == true)
  }
}
