import NeuralCore

/// A bounds-checked reader of the protobuf wire format over a byte buffer.
///
/// Every length is checked against the end of the enclosing message before it is used, so a
/// damaged length can never make the reader allocate or read past the buffer. Nested messages
/// share the buffer (no copy) and carry their depth, which is bounded.
struct ProtobufReader {
  /// How a field's payload is encoded on the wire.
  enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
  }

  /// The whole buffer, shared with every nested reader.
  let buffer: [UInt8]
  /// The offset of the next unread byte.
  private(set) var position: Int
  /// The offset just past this message.
  let end: Int
  /// How many messages enclose this one.
  let depth: Int
  /// The deepest nesting allowed.
  let maximumDepth: Int

  /// Creates a reader over a whole buffer.
  ///
  /// - Parameters:
  ///   - buffer: The serialized message.
  ///   - maximumDepth: The deepest nesting of messages allowed.
  init(_ buffer: [UInt8], maximumDepth: Int) {
    self.buffer = buffer
    self.position = 0
    self.end = buffer.count
    self.depth = 0
    self.maximumDepth = maximumDepth
  }

  private init(buffer: [UInt8], range: Range<Int>, depth: Int, maximumDepth: Int) {
    self.buffer = buffer
    self.position = range.lowerBound
    self.end = range.upperBound
    self.depth = depth
    self.maximumDepth = maximumDepth
  }

  /// Whether every byte of this message has been read.
  var isAtEnd: Bool { position >= end }

  /// Reads the next field's key.
  ///
  /// - Returns: The field number and wire type, or `nil` at the end of the message.
  /// - Throws: `malformedFile` for a bad key, field number 0 or a group.
  mutating func nextField() throws(ModelFormatsError) -> (number: Int, wireType: WireType)? {
    guard !isAtEnd else { return nil }
    let keyOffset = position
    let key = try readVarint()
    guard let wireType = WireType(rawValue: UInt8(key & 7)) else {
      throw malformed("unknown wire type \(key & 7)", at: keyOffset)
    }
    let number = key >> 3
    guard number > 0, number <= 0x1FFF_FFFF else {
      throw malformed("invalid field number \(number)", at: keyOffset)
    }
    guard wireType != .startGroup, wireType != .endGroup else {
      throw malformed("groups are not used by ONNX", at: keyOffset)
    }
    return (Int(number), wireType)
  }

  /// Reads a base-128 varint of at most ten bytes.
  ///
  /// - Returns: The value's 64 bits.
  /// - Throws: `malformedFile` when the varint is truncated or longer than 64 bits.
  mutating func readVarint() throws(ModelFormatsError) -> UInt64 {
    let start = position
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < end else { throw malformed("truncated varint", at: start) }
      let byte = buffer[position]
      position += 1
      if shift == 63, byte > 1 {
        throw malformed("varint overflows 64 bits", at: start)
      }
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
      guard shift <= 63 else { throw malformed("varint longer than ten bytes", at: start) }
    }
  }

  /// Reads four little-endian bytes.
  ///
  /// - Returns: The value.
  /// - Throws: `malformedFile` when fewer than four bytes remain.
  mutating func readFixed32() throws(ModelFormatsError) -> UInt32 {
    guard end - position >= 4 else { throw malformed("truncated 32-bit value", at: position) }
    var value: UInt32 = 0
    for index in 0..<4 {
      value |= UInt32(buffer[position + index]) << (8 * UInt32(index))
    }
    position += 4
    return value
  }

  /// Reads eight little-endian bytes.
  ///
  /// - Returns: The value.
  /// - Throws: `malformedFile` when fewer than eight bytes remain.
  mutating func readFixed64() throws(ModelFormatsError) -> UInt64 {
    guard end - position >= 8 else { throw malformed("truncated 64-bit value", at: position) }
    var value: UInt64 = 0
    for index in 0..<8 {
      value |= UInt64(buffer[position + index]) << (8 * UInt64(index))
    }
    position += 8
    return value
  }

  /// Reads a length prefix and returns the byte range it covers, checked against the message end.
  ///
  /// - Returns: The payload's range in ``buffer``.
  /// - Throws: `malformedFile` when the length runs past the enclosing message.
  mutating func readLengthDelimitedRange() throws(ModelFormatsError) -> Range<Int> {
    let start = position
    let length = try readVarint()
    guard length <= UInt64(end - position) else {
      throw malformed("length \(length) runs past the end of the message", at: start)
    }
    let range = position..<(position + Int(length))
    position = range.upperBound
    return range
  }

  /// Reads a length-delimited payload as UTF-8 text, repairing invalid sequences.
  ///
  /// - Returns: The text.
  /// - Throws: `malformedFile` for a bad length.
  mutating func readString() throws(ModelFormatsError) -> String {
    let range = try readLengthDelimitedRange()
    return String(decoding: buffer[range], as: UTF8.self)
  }

  /// Reads a length-delimited payload as a nested message.
  ///
  /// - Returns: A reader over the nested message.
  /// - Throws: `malformedFile` for a bad length, `limitExceeded` when nesting is too deep.
  mutating func readMessage() throws(ModelFormatsError) -> ProtobufReader {
    let range = try readLengthDelimitedRange()
    guard depth + 1 <= maximumDepth else {
      throw ModelFormatsError(
        .limitExceeded,
        "protobuf messages nested deeper than \(maximumDepth) at byte \(range.lowerBound)")
    }
    return ProtobufReader(
      buffer: buffer, range: range, depth: depth + 1, maximumDepth: maximumDepth)
  }

  /// A reader over a nested message whose payload range an earlier read returned.
  ///
  /// - Parameter range: A range of ``buffer`` inside this message.
  /// - Returns: A reader over the nested message.
  /// - Throws: `limitExceeded` when nesting is too deep, `malformedFile` for a range outside
  ///   this message.
  func message(in range: Range<Int>) throws(ModelFormatsError) -> ProtobufReader {
    guard range.lowerBound >= 0, range.upperBound <= end else {
      throw malformed("nested message outside its parent", at: range.lowerBound)
    }
    guard depth + 1 <= maximumDepth else {
      throw ModelFormatsError(
        .limitExceeded,
        "protobuf messages nested deeper than \(maximumDepth) at byte \(range.lowerBound)")
    }
    return ProtobufReader(
      buffer: buffer, range: range, depth: depth + 1, maximumDepth: maximumDepth)
  }

  /// Skips a field's payload.
  ///
  /// - Parameter wireType: The field's wire type.
  /// - Throws: `malformedFile` when the payload is truncated.
  mutating func skip(_ wireType: WireType) throws(ModelFormatsError) {
    switch wireType {
    case .varint: _ = try readVarint()
    case .fixed64: _ = try readFixed64()
    case .fixed32: _ = try readFixed32()
    case .lengthDelimited: _ = try readLengthDelimitedRange()
    case .startGroup, .endGroup: throw malformed("groups are not used by ONNX", at: position)
    }
  }

  /// Reads a varint field as a signed 64-bit integer (two's complement, as `int64` and `int32`).
  ///
  /// - Parameter wireType: The field's wire type, which must be varint.
  /// - Returns: The value.
  /// - Throws: `malformedFile` for another wire type or a bad varint.
  mutating func readInt64(_ wireType: WireType) throws(ModelFormatsError) -> Int64 {
    guard wireType == .varint else { throw malformed("expected a varint", at: position) }
    return Int64(bitPattern: try readVarint())
  }

  /// Reads a fixed32 field as a float.
  ///
  /// - Parameter wireType: The field's wire type, which must be fixed32.
  /// - Returns: The value.
  /// - Throws: `malformedFile` for another wire type or a truncated value.
  mutating func readFloat(_ wireType: WireType) throws(ModelFormatsError) -> Float {
    guard wireType == .fixed32 else { throw malformed("expected a 32-bit float", at: position) }
    return Float(bitPattern: try readFixed32())
  }

  /// Reads a length-delimited field, or fails naming the field.
  ///
  /// - Parameter wireType: The field's wire type, which must be length-delimited.
  /// - Throws: `malformedFile` for another wire type.
  func expectLengthDelimited(_ wireType: WireType) throws(ModelFormatsError) {
    guard wireType == .lengthDelimited else {
      throw malformed("expected a length-delimited field", at: position)
    }
  }

  /// Appends a repeated varint field, packed or not.
  ///
  /// - Parameters:
  ///   - wireType: The field's wire type.
  ///   - values: The array to append to.
  /// - Throws: `malformedFile` for a bad encoding.
  mutating func appendVarints(_ wireType: WireType, to values: inout [UInt64])
    throws(ModelFormatsError)
  {
    switch wireType {
    case .varint:
      values.append(try readVarint())
    case .lengthDelimited:
      var packed = try readMessageIgnoringDepth()
      while !packed.isAtEnd { values.append(try packed.readVarint()) }
    default:
      throw malformed("expected varints", at: position)
    }
  }

  /// Appends a repeated fixed32 field, packed or not.
  ///
  /// - Parameters:
  ///   - wireType: The field's wire type.
  ///   - values: The array to append to.
  /// - Throws: `malformedFile` for a bad encoding.
  mutating func appendFixed32s(_ wireType: WireType, to values: inout [UInt32])
    throws(ModelFormatsError)
  {
    switch wireType {
    case .fixed32:
      values.append(try readFixed32())
    case .lengthDelimited:
      var packed = try readMessageIgnoringDepth()
      guard (packed.end - packed.position) % 4 == 0 else {
        throw malformed("packed 32-bit values are not a multiple of 4 bytes", at: packed.position)
      }
      values.reserveCapacity(values.count + (packed.end - packed.position) / 4)
      while !packed.isAtEnd { values.append(try packed.readFixed32()) }
    default:
      throw malformed("expected 32-bit values", at: position)
    }
  }

  /// Appends a repeated fixed64 field, packed or not.
  ///
  /// - Parameters:
  ///   - wireType: The field's wire type.
  ///   - values: The array to append to.
  /// - Throws: `malformedFile` for a bad encoding.
  mutating func appendFixed64s(_ wireType: WireType, to values: inout [UInt64])
    throws(ModelFormatsError)
  {
    switch wireType {
    case .fixed64:
      values.append(try readFixed64())
    case .lengthDelimited:
      var packed = try readMessageIgnoringDepth()
      guard (packed.end - packed.position) % 8 == 0 else {
        throw malformed("packed 64-bit values are not a multiple of 8 bytes", at: packed.position)
      }
      values.reserveCapacity(values.count + (packed.end - packed.position) / 8)
      while !packed.isAtEnd { values.append(try packed.readFixed64()) }
    default:
      throw malformed("expected 64-bit values", at: position)
    }
  }

  /// Reads a packed payload, which is flat data rather than a nested message.
  private mutating func readMessageIgnoringDepth() throws(ModelFormatsError) -> ProtobufReader {
    let range = try readLengthDelimitedRange()
    return ProtobufReader(buffer: buffer, range: range, depth: depth, maximumDepth: maximumDepth)
  }

  /// Makes a `malformedFile` error that names the byte offset.
  func malformed(_ message: String, at offset: Int) -> ModelFormatsError {
    ModelFormatsError(.malformedFile, "protobuf: \(message) at byte \(offset)")
  }
}
