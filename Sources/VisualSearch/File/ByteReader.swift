/// Reads little-endian integers and length-prefixed strings from a buffer, every read checked
/// against its end.
struct ByteReader {
  private let buffer: UnsafeRawBufferPointer
  /// The next byte to read.
  private(set) var position = 0

  init(_ buffer: UnsafeRawBufferPointer) {
    self.buffer = buffer
  }

  /// Whether every byte was read.
  var isAtEnd: Bool { position == buffer.count }

  private mutating func take(_ count: Int) throws(SearchError) -> UnsafeRawBufferPointer {
    guard count >= 0, count <= buffer.count - position else {
      throw SearchError(.invalidIndex, "the index ends inside a record (byte \(position))")
    }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: buffer[position..<(position + count)])
  }

  mutating func bytes(_ count: Int) throws(SearchError) -> [UInt8] {
    Array(try take(count))
  }

  mutating func uint32() throws(SearchError) -> UInt32 {
    UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self))
  }

  /// A u64 that must fit a non-negative Int.
  mutating func length() throws(SearchError) -> Int {
    let value = UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self))
    guard value <= UInt64(Int.max) else {
      throw SearchError(.invalidIndex, "the index declares a length of \(value)")
    }
    return Int(value)
  }

  /// A u32 length and that many bytes of UTF-8 (at most `limit` bytes).
  mutating func string(limit: Int = 1 << 20) throws(SearchError) -> String {
    let length = Int(try uint32())
    guard length <= limit else {
      throw SearchError(.invalidIndex, "the index holds a string of \(length) bytes")
    }
    let bytes = try take(length)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw SearchError(.invalidIndex, "the index holds text that is not UTF-8")
    }
    return text
  }
}

/// Builds little-endian integers and length-prefixed strings into bytes.
struct ByteWriter {
  private(set) var bytes: [UInt8] = []

  mutating func append(_ raw: [UInt8]) {
    bytes += raw
  }

  mutating func append(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }

  mutating func append(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }

  /// A u32 length and the string's UTF-8 bytes.
  mutating func append(_ text: String) {
    let utf8 = Array(text.utf8)
    append(UInt32(utf8.count))
    bytes += utf8
  }
}
