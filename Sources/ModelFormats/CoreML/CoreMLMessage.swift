import NeuralCore

/// One protobuf message of a Core ML file, read once into its fields so that the many small
/// parameter messages of Model.proto and NeuralNetwork.proto read by field number.
///
/// Payloads stay in the shared buffer (ranges, no copies); nested messages are read on demand
/// through ``ProtobufReader/message(in:)``, which bounds their depth. For a field that occurs
/// more than once, the scalar accessors take the last value, as protobuf does.
struct CoreMLMessage {
  /// One field's payload.
  private enum Payload {
    case scalar(UInt64)
    case fixed32(UInt32)
    case bytes(Range<Int>)
  }

  private let reader: ProtobufReader
  private var fields: [Int: [Payload]] = [:]

  /// Reads every field of the message `reader` spans.
  init(_ reader: ProtobufReader) throws(ModelFormatsError) {
    self.reader = reader
    var cursor = reader
    while let (number, wireType) = try cursor.nextField() {
      let payload: Payload
      switch wireType {
      case .varint: payload = .scalar(try cursor.readVarint())
      case .fixed64: payload = .scalar(try cursor.readFixed64())
      case .fixed32: payload = .fixed32(try cursor.readFixed32())
      case .lengthDelimited: payload = .bytes(try cursor.readLengthDelimitedRange())
      case .startGroup, .endGroup:
        try cursor.skip(wireType)
        continue
      }
      fields[number, default: []].append(payload)
    }
  }

  /// Whether the field occurs.
  func has(_ number: Int) -> Bool { fields[number] != nil }

  /// An integer field (`int32`, `int64`, `uint32`, `uint64`, `bool` or an enum); 0 when absent.
  func integer(_ number: Int) -> Int64 {
    guard case .scalar(let value)? = fields[number]?.last else { return 0 }
    return Int64(bitPattern: value)
  }

  /// A `float` field; 0 when absent.
  func float(_ number: Int) -> Float {
    guard case .fixed32(let bits)? = fields[number]?.last else { return 0 }
    return Float(bitPattern: bits)
  }

  /// A `double` field; 0 when absent.
  func double(_ number: Int) -> Double {
    guard case .scalar(let bits)? = fields[number]?.last else { return 0 }
    return Double(bitPattern: bits)
  }

  /// A `string` field; empty when absent.
  func string(_ number: Int) -> String {
    strings(number).last ?? ""
  }

  /// A repeated `string` field.
  func strings(_ number: Int) -> [String] {
    ranges(number).map { String(decoding: reader.buffer[$0], as: UTF8.self) }
  }

  /// A `bytes` field; empty when absent.
  func bytes(_ number: Int) -> ArraySlice<UInt8> {
    ranges(number).last.map { reader.buffer[$0] } ?? []
  }

  /// A nested message; `nil` when absent.
  func message(_ number: Int) throws(ModelFormatsError) -> CoreMLMessage? {
    guard let range = ranges(number).last else { return nil }
    return try CoreMLMessage(reader.message(in: range))
  }

  /// A repeated nested message.
  func messages(_ number: Int) throws(ModelFormatsError) -> [CoreMLMessage] {
    var result: [CoreMLMessage] = []
    for range in ranges(number) { result.append(try CoreMLMessage(reader.message(in: range))) }
    return result
  }

  /// A repeated integer field, packed or not.
  func integers(_ number: Int) throws(ModelFormatsError) -> [Int64] {
    var values: [Int64] = []
    for payload in fields[number] ?? [] {
      switch payload {
      case .scalar(let value): values.append(Int64(bitPattern: value))
      case .bytes(let range):
        var packed = try reader.message(in: range)
        while !packed.isAtEnd { values.append(Int64(bitPattern: try packed.readVarint())) }
      case .fixed32:
        throw ModelFormatsError(.malformedFile, "Core ML field \(number) is not an integer list")
      }
    }
    return values
  }

  /// A repeated `float` field, packed or not.
  func floats(_ number: Int) throws(ModelFormatsError) -> [Float] {
    var values: [Float] = []
    for payload in fields[number] ?? [] {
      switch payload {
      case .fixed32(let bits): values.append(Float(bitPattern: bits))
      case .bytes(let range):
        guard range.count % 4 == 0 else {
          throw ModelFormatsError(
            .malformedFile, "Core ML float list \(number) has \(range.count) bytes")
        }
        values += Self.littleEndianFloats(reader.buffer[range])
      case .scalar:
        throw ModelFormatsError(.malformedFile, "Core ML field \(number) is not a float list")
      }
    }
    return values
  }

  /// A repeated `double` field, packed or not.
  func doubles(_ number: Int) throws(ModelFormatsError) -> [Double] {
    var values: [Double] = []
    for payload in fields[number] ?? [] {
      switch payload {
      case .scalar(let bits): values.append(Double(bitPattern: bits))
      case .bytes(let range):
        guard range.count % 8 == 0 else {
          throw ModelFormatsError(
            .malformedFile, "Core ML double list \(number) has \(range.count) bytes")
        }
        values.reserveCapacity(values.count + range.count / 8)
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 8) {
          var bits: UInt64 = 0
          for index in 0..<8 { bits |= UInt64(reader.buffer[start + index]) << (8 * index) }
          values.append(Double(bitPattern: bits))
        }
      case .fixed32:
        throw ModelFormatsError(.malformedFile, "Core ML field \(number) is not a double list")
      }
    }
    return values
  }

  /// Little-endian float32 values (the wire's order and that of every host this package builds
  /// for); `bytes.count` must be a multiple of 4.
  static func littleEndianFloats(_ bytes: ArraySlice<UInt8>) -> [Float] {
    [Float](unsafeUninitializedCapacity: bytes.count / 4) { target, count in
      // Safety: the target holds at least `bytes.count / 4` floats, exactly the bytes copied.
      bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(target).copyMemory(from: source)
      }
      count = bytes.count / 4
    }
  }

  /// The one-of case present among `numbers`, if any (a valid file sets at most one).
  func oneOf(_ numbers: [Int]) -> Int? {
    numbers.filter { fields[$0] != nil }.last
  }

  private func ranges(_ number: Int) -> [Range<Int>] {
    (fields[number] ?? []).compactMap { payload in
      if case .bytes(let range) = payload { return range }
      return nil
    }
  }
}
