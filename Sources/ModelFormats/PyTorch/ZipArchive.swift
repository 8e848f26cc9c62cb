import CNative
import NeuralCore

/// A reader of zip archives whose entries are stored (not compressed), as `torch.save` writes them.
///
/// Entries are located through the central directory, their data through each local header, and
/// every offset and size is checked against the buffer. CRC-32 is verified when an entry is read.
/// Zip64 records are followed. Compressed entries are refused with `unsupported`.
struct ZipArchive {
  /// One entry of the central directory.
  struct Entry {
    var name: String
    var method: UInt16
    var crc32: UInt32
    var compressedSize: Int
    var size: Int
    var localHeaderOffset: Int
  }

  let bytes: [UInt8]
  /// The entries in central-directory order.
  private(set) var entries: [Entry] = []

  /// Whether `bytes` starts like a zip archive.
  static func looksLikeZip(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && bytes[2] == 3 && bytes[3] == 4
  }

  /// Reads the central directory.
  ///
  /// - Parameter bytes: The whole archive.
  /// - Throws: `malformedFile` when the directory is missing, truncated or inconsistent.
  init(_ bytes: [UInt8]) throws(ModelFormatsError) {
    self.bytes = bytes
    let endRecord = try Self.findEndRecord(bytes)
    var count = Int(try read16(endRecord + 10))
    var directorySize = Int(try read32(endRecord + 12))
    var directoryOffset = Int(try read32(endRecord + 16))
    if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
      // The Zip64 end-of-central-directory locator sits just before the classic record.
      let locator = endRecord - 20
      guard locator >= 0, try read32(locator) == 0x0706_4B50 else {
        throw Self.malformed("Zip64 locator missing")
      }
      let record = try checkedInt(try read64(locator + 8))
      guard try read32(record) == 0x0606_4B50 else { throw Self.malformed("Zip64 record missing") }
      count = try checkedInt(try read64(record + 32))
      directorySize = try checkedInt(try read64(record + 40))
      directoryOffset = try checkedInt(try read64(record + 48))
    }
    guard directoryOffset <= bytes.count, directorySize <= bytes.count - directoryOffset,
      count <= directorySize / 46
    else {
      throw Self.malformed("central directory out of bounds")
    }
    var offset = directoryOffset
    for _ in 0..<count {
      guard try read32(offset) == 0x0201_4B50 else {
        throw Self.malformed("bad central directory entry at byte \(offset)")
      }
      let nameLength = Int(try read16(offset + 28))
      let extraLength = Int(try read16(offset + 30))
      let commentLength = Int(try read16(offset + 32))
      let name = String(decoding: try slice(offset + 46, nameLength), as: UTF8.self)
      var entry = Entry(
        name: name, method: try read16(offset + 10), crc32: try read32(offset + 16),
        compressedSize: Int(try read32(offset + 20)), size: Int(try read32(offset + 24)),
        localHeaderOffset: Int(try read32(offset + 42)))
      try applyZip64Extra(
        to: &entry, extra: try slice(offset + 46 + nameLength, extraLength))
      entries.append(entry)
      offset += 46 + nameLength + extraLength + commentLength
    }
  }

  /// The byte range of an entry's data, checked to be stored and intact.
  ///
  /// - Parameter entry: An entry of this archive.
  /// - Returns: The range of the entry's bytes in ``bytes``.
  /// - Throws: `unsupported` for a compressed entry, `malformedFile` for bad offsets or a CRC
  ///   mismatch.
  func dataRange(of entry: Entry) throws(ModelFormatsError) -> Range<Int> {
    guard entry.method == 0 else {
      throw ModelFormatsError(
        .unsupported,
        "zip entry '\(entry.name)' is compressed (method \(entry.method)); only stored entries, "
          + "as torch.save writes them, are supported")
    }
    guard entry.compressedSize == entry.size else {
      throw Self.malformed("stored entry '\(entry.name)' has differing sizes")
    }
    let header = entry.localHeaderOffset
    guard try read32(header) == 0x0403_4B50 else {
      throw Self.malformed("bad local header for '\(entry.name)'")
    }
    let start = header + 30 + Int(try read16(header + 26)) + Int(try read16(header + 28))
    guard start <= bytes.count, entry.size <= bytes.count - start else {
      throw Self.malformed("entry '\(entry.name)' runs past the end of the archive")
    }
    let range = start..<(start + entry.size)
    let checksum = bytes.withUnsafeBytes { whole in
      let entryBytes = UnsafeRawBufferPointer(rebasing: whole[range])
      return cnc_crc32(0, entryBytes.baseAddress, entryBytes.count)
    }
    guard checksum == entry.crc32 else {
      throw Self.malformed("entry '\(entry.name)' fails its CRC-32 check")
    }
    return range
  }

  private static func findEndRecord(_ bytes: [UInt8]) throws(ModelFormatsError) -> Int {
    guard bytes.count >= 22 else { throw malformed("too short for a zip archive") }
    // The record is 22 bytes plus a comment of at most 65,535 bytes at the end of the file.
    let lowest = max(0, bytes.count - 22 - 65_535)
    var offset = bytes.count - 22
    while offset >= lowest {
      if bytes[offset] == 0x50, bytes[offset + 1] == 0x4B, bytes[offset + 2] == 5,
        bytes[offset + 3] == 6
      {
        return offset
      }
      offset -= 1
    }
    throw malformed("no end-of-central-directory record")
  }

  private func applyZip64Extra(to entry: inout Entry, extra: ArraySlice<UInt8>)
    throws(ModelFormatsError)
  {
    var offset = extra.startIndex
    while offset + 4 <= extra.endIndex {
      let id = UInt16(extra[offset]) | UInt16(extra[offset + 1]) << 8
      let length = Int(extra[offset + 2]) | Int(extra[offset + 3]) << 8
      let body = offset + 4
      guard body + length <= extra.endIndex else { throw Self.malformed("bad extra field") }
      if id == 1 {
        var field = body
        func next() throws(ModelFormatsError) -> Int {
          guard field + 8 <= body + length else { throw Self.malformed("short Zip64 field") }
          let value = try checkedInt(try read64(field))
          field += 8
          return value
        }
        if entry.size == 0xFFFF_FFFF { entry.size = try next() }
        if entry.compressedSize == 0xFFFF_FFFF { entry.compressedSize = try next() }
        if entry.localHeaderOffset == 0xFFFF_FFFF { entry.localHeaderOffset = try next() }
      }
      offset = body + length
    }
  }

  private func slice(_ offset: Int, _ count: Int) throws(ModelFormatsError) -> ArraySlice<UInt8> {
    guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
      throw Self.malformed("field at byte \(offset) runs past the end")
    }
    return bytes[offset..<(offset + count)]
  }

  private func read16(_ offset: Int) throws(ModelFormatsError) -> UInt16 {
    let field = try slice(offset, 2)
    return UInt16(field[offset]) | UInt16(field[offset + 1]) << 8
  }

  private func read32(_ offset: Int) throws(ModelFormatsError) -> UInt32 {
    let field = try slice(offset, 4)
    return (0..<4).reduce(UInt32(0)) { $0 | UInt32(field[offset + $1]) << (8 * UInt32($1)) }
  }

  private func read64(_ offset: Int) throws(ModelFormatsError) -> UInt64 {
    let field = try slice(offset, 8)
    return (0..<8).reduce(UInt64(0)) { $0 | UInt64(field[offset + $1]) << (8 * UInt64($1)) }
  }

  private func checkedInt(_ value: UInt64) throws(ModelFormatsError) -> Int {
    guard value <= UInt64(bytes.count) else {
      throw Self.malformed("offset \(value) out of bounds")
    }
    return Int(value)
  }

  private static func malformed(_ message: String) -> ModelFormatsError {
    ModelFormatsError(.malformedFile, "zip: \(message)")
  }
}
