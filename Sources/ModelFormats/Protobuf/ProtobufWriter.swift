/// Emits protobuf wire format: the ONNX writer's encoder, and tests' builder of small and
/// hostile messages.
package struct ProtobufWriter {
  /// The message written so far.
  package private(set) var bytes: [UInt8] = []

  /// An empty message.
  package init() {}

  /// A base-128 varint.
  package mutating func varint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// A field key: the field number and wire type.
  package mutating func key(_ field: Int, _ wireType: UInt64) {
    varint(UInt64(field) << 3 | wireType)
  }

  /// A varint field (`int32`, `int64`, `uint64`, `bool`, enums; negative values take ten bytes).
  package mutating func int(_ field: Int, _ value: Int64) {
    key(field, 0)
    varint(UInt64(bitPattern: value))
  }

  /// A length-delimited field holding `payload`.
  package mutating func bytes(_ field: Int, _ payload: [UInt8]) {
    key(field, 2)
    varint(UInt64(payload.count))
    bytes += payload
  }

  /// A string field, UTF-8.
  package mutating func string(_ field: Int, _ text: String) { bytes(field, Array(text.utf8)) }

  /// A nested message field that `build` writes.
  package mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
    var nested = ProtobufWriter()
    build(&nested)
    bytes(field, nested.bytes)
  }

  /// A `float` field (fixed 32 bits, little-endian).
  package mutating func float(_ field: Int, _ value: Float) {
    key(field, 5)
    bytes += (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
  }

  /// A packed repeated varint field.
  package mutating func packedInts(_ field: Int, _ values: [Int64]) {
    var packed = ProtobufWriter()
    for value in values { packed.varint(UInt64(bitPattern: value)) }
    bytes(field, packed.bytes)
  }

  /// A packed repeated `float` field.
  package mutating func packedFloats(_ field: Int, _ values: [Float]) {
    var payload: [UInt8] = []
    payload.reserveCapacity(values.count * 4)
    for value in values {
      payload += (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
    }
    bytes(field, payload)
  }
}
