import NeuralCore

extension ONNXProtoDecoder {
  /// The fields of a `TensorProto`, gathered before decoding because the name and type may follow
  /// the data in the file.
  private struct TensorFields {
    var dims: [UInt64] = []
    var dataType: Int32 = 0
    var name = ""
    var rawData: Range<Int>?
    var floatData: [UInt32] = []
    var int32Data: [UInt64] = []
    var int64Data: [UInt64] = []
    var doubleData: [UInt64] = []
    var uint64Data: [UInt64] = []
    var stringData: [String] = []
    var externalLocation: String?
    var externalOffset: String?
    var externalLength: String?
    var isExternal = false
  }

  /// Decodes a `TensorProto` and its elements.
  func tensor(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXTensor {
    var fields = TensorFields()
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: try reader.appendVarints(wireType, to: &fields.dims)
      case 2:
        fields.dataType = Int32(truncatingIfNeeded: try reader.readInt64(wireType))
      case 4: try reader.appendFixed32s(wireType, to: &fields.floatData)
      case 5: try reader.appendVarints(wireType, to: &fields.int32Data)
      case 6:
        try reader.expectLengthDelimited(wireType)
        fields.stringData.append(try reader.readString())
      case 7: try reader.appendVarints(wireType, to: &fields.int64Data)
      case 8:
        try reader.expectLengthDelimited(wireType)
        fields.name = try reader.readString()
      case 9:
        try reader.expectLengthDelimited(wireType)
        fields.rawData = try reader.readLengthDelimitedRange()
      case 10: try reader.appendFixed64s(wireType, to: &fields.doubleData)
      case 11: try reader.appendVarints(wireType, to: &fields.uint64Data)
      case 13:
        try reader.expectLengthDelimited(wireType)
        var entry = try reader.readMessage()
        var key = ""
        var value = ""
        while let (entryNumber, entryWireType) = try entry.nextField() {
          switch entryNumber {
          case 1:
            try entry.expectLengthDelimited(entryWireType)
            key = try entry.readString()
          case 2:
            try entry.expectLengthDelimited(entryWireType)
            value = try entry.readString()
          default: try entry.skip(entryWireType)
          }
        }
        fields.isExternal = true
        switch key {
        case "location": fields.externalLocation = value
        case "offset": fields.externalOffset = value
        case "length": fields.externalLength = value
        default: break
        }
      case 14:
        if try reader.readInt64(wireType) == 1 { fields.isExternal = true }
      default: try reader.skip(wireType)
      }
      try checkGrowth(fields)
    }
    return try decode(fields, buffer: reader.buffer)
  }

  /// Stops reading typed values or dimensions as soon as they exceed the limits, so a tensor's
  /// repeated fields never hold more than ``ImportLimits/maximumElementCount`` values.
  private func checkGrowth(_ fields: TensorFields) throws(ModelFormatsError) {
    let values =
      fields.floatData.count + fields.int32Data.count + fields.int64Data.count
      + fields.doubleData.count + fields.uint64Data.count + fields.stringData.count
    guard values <= limits.maximumElementCount, fields.dims.count <= limits.maximumRank else {
      throw ModelFormatsError(
        .limitExceeded,
        "tensor '\(fields.name)' has more than \(limits.maximumElementCount) values or "
          + "\(limits.maximumRank) dimensions")
    }
  }

  private func decode(_ fields: TensorFields, buffer: [UInt8]) throws(ModelFormatsError)
    -> ONNXTensor
  {
    let name = fields.name
    guard fields.dims.count <= limits.maximumRank else {
      throw ModelFormatsError(
        .limitExceeded,
        "tensor '\(name)' has rank \(fields.dims.count), above the limit \(limits.maximumRank)")
    }
    var shape: [Int] = []
    for dim in fields.dims {
      guard dim <= UInt64(Int.max) else {
        throw ModelFormatsError(.malformedFile, "tensor '\(name)' has a negative dimension")
      }
      shape.append(Int(dim))
    }
    let count = try limits.checkedElementCount(of: shape, name: name)
    let type = ONNXDataType(rawValue: fields.dataType)
    var buffer = buffer
    var raw = fields.rawData
    if fields.isExternal {
      buffer = try externalBytes(fields, count: count, type: type)
      raw = buffer.indices
    }
    let elements = ElementSource(buffer: buffer, raw: raw, count: count, name: name, type: type)
    let value: ONNXTensorValue
    switch type {
    case .float:
      let scalars = try elements.float32s(typed: fields.floatData)
      value = .float(try Tensor(fileShape: shape, scalars: scalars))
    case .float16, .bfloat16, .float8E4M3FN, .float8E4M3FNUZ, .float8E5M2, .float8E5M2FNUZ,
      .float8E8M0:
      let width = type == .float16 || type == .bfloat16 ? 2 : 1
      let bits = try elements.unsigned(width: width, typed: fields.int32Data)
      let scalars = bits.map { MiniFloat.decode(UInt32(truncatingIfNeeded: $0), as: type) }
      value = .float(try Tensor(fileShape: shape, scalars: scalars))
    case .float4E2M1:
      let bits = try elements.packed(bitsPerElement: 4, typed: fields.int32Data)
      let scalars = bits.map { MiniFloat.decode(UInt32($0), as: type) }
      value = .float(try Tensor(fileShape: shape, scalars: scalars))
    case .double:
      let bits = try elements.unsigned(width: 8, typed: fields.doubleData)
      value = .double(bits.map { Double(bitPattern: $0) }, shape: shape)
    case .int8, .int16, .int32:
      let width = type == .int8 ? 1 : type == .int16 ? 2 : 4
      let values: [Int64]
      if elements.raw != nil {
        let signBit = UInt64(1) << (8 * width - 1)
        values = try elements.unsigned(width: width, typed: []).map {
          $0 & signBit != 0 ? Int64($0) - Int64(signBit << 1) : Int64($0)
        }
      } else {
        values = try elements.checked(fields.int32Data).map { Int64(bitPattern: $0) }
      }
      value = .integer(values, shape: shape)
    case .uint8, .uint16:
      let width = type == .uint8 ? 1 : 2
      let raw = try elements.unsigned(width: width, typed: fields.int32Data)
      value = .integer(raw.map { Int64(truncatingIfNeeded: $0) }, shape: shape)
    case .int64:
      let raw = try elements.unsigned(width: 8, typed: fields.int64Data)
      value = .integer(raw.map { Int64(bitPattern: $0) }, shape: shape)
    case .uint32, .uint64:
      let raw = try elements.unsigned(width: type == .uint32 ? 4 : 8, typed: fields.uint64Data)
      value = .integer(raw.map { Int64(bitPattern: $0) }, shape: shape)
    case .int4, .uint4, .int2, .uint2:
      let bitsPerElement = type == .int4 || type == .uint4 ? 4 : 2
      let packed = try elements.packed(bitsPerElement: bitsPerElement, typed: fields.int32Data)
      let signBit = UInt8(1) << (bitsPerElement - 1)
      let signed = type == .int4 || type == .int2
      value = .integer(
        packed.map {
          signed && $0 & signBit != 0 ? Int64($0) - Int64(signBit << 1) : Int64($0)
        }, shape: shape)
    case .bool:
      let raw = try elements.unsigned(width: 1, typed: fields.int32Data)
      value = .bool(raw.map { $0 != 0 }, shape: shape)
    case .string:
      value = .string(try elements.checked(fields.stringData), shape: shape)
    default:
      throw ModelFormatsError(
        .unsupported, "tensor '\(name)' has element type \(type), which is not supported")
    }
    return ONNXTensor(name: name, dataType: type, value: value)
  }

  /// Reads the bytes of a tensor stored outside the protobuf.
  private func externalBytes(_ fields: TensorFields, count: Int, type: ONNXDataType)
    throws(ModelFormatsError) -> [UInt8]
  {
    let name = fields.name
    guard let location = fields.externalLocation else {
      throw ModelFormatsError(
        .malformedFile, "tensor '\(name)' is marked external but names no location")
    }
    guard let externalData else {
      throw ModelFormatsError(
        .unsupported,
        "tensor '\(name)' keeps its data in the external file '\(location)'; load the model "
          + "from its file path so the files beside it can be read")
    }
    guard let byteCount = Self.byteCount(of: type, count: count) else {
      throw ModelFormatsError(
        .unsupported, "tensor '\(name)' of element type \(type) cannot be read from external data")
    }
    func integer(_ text: String?, _ key: String) throws(ModelFormatsError) -> Int? {
      guard let text else { return nil }
      guard let value = Int(text), value >= 0 else {
        throw ModelFormatsError(
          .malformedFile, "tensor '\(name)' has external data \(key) '\(text)'")
      }
      return value
    }
    return try externalData.read(
      location: location, offset: integer(fields.externalOffset, "offset") ?? 0,
      length: integer(fields.externalLength, "length"), byteCount: byteCount, name: name)
  }

  /// The bytes `count` elements of a fixed-size type take in `raw_data`, or `nil` for strings
  /// and types this library does not decode.
  private static func byteCount(of type: ONNXDataType, count: Int) -> Int? {
    let bits: Int
    switch type {
    case .double, .int64, .uint64: bits = 64
    case .float, .int32, .uint32: bits = 32
    case .float16, .bfloat16, .int16, .uint16: bits = 16
    case .int8, .uint8, .bool, .float8E4M3FN, .float8E4M3FNUZ, .float8E5M2, .float8E5M2FNUZ,
      .float8E8M0:
      bits = 8
    case .int4, .uint4, .float4E2M1: bits = 4
    case .int2, .uint2: bits = 2
    default: return nil
    }
    let total = count.multipliedReportingOverflow(by: bits)
    return total.overflow ? nil : (total.partialValue + 7) / 8
  }
}

/// Reads a tensor's elements from `raw_data` or checks a typed field's count.
private struct ElementSource {
  let buffer: [UInt8]
  let raw: Range<Int>?
  let count: Int
  let name: String
  let type: ONNXDataType

  /// The float32 elements from `raw_data` (little-endian) or else from `float_data`.
  func float32s(typed: [UInt32]) throws(ModelFormatsError) -> [Float] {
    guard let raw else { return try checked(typed).map { Float(bitPattern: $0) } }
    try checkRawLength(raw, bytes: count.multipliedReportingOverflow(by: 4))
    var result = [Float](repeating: 0, count: count)
    result.withUnsafeMutableBytes { destination in
      buffer.withUnsafeBytes { source in
        // Safety: checkRawLength proved raw.count == 4 * count == destination.count, and raw lies
        // inside buffer because ProtobufReader bounds-checked it.
        destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[raw]))
      }
    }
    #if _endian(big)
      result = result.map { Float(bitPattern: UInt32(littleEndian: $0.bitPattern)) }
    #endif
    return result
  }

  /// The elements as little-endian unsigned integers of `width` bytes from `raw_data`, or else
  /// the typed field's values.
  func unsigned(width: Int, typed: [UInt64]) throws(ModelFormatsError) -> [UInt64] {
    guard let raw else { return try checked(typed) }
    try checkRawLength(raw, bytes: count.multipliedReportingOverflow(by: width))
    var result = [UInt64](repeating: 0, count: count)
    var offset = raw.lowerBound
    for index in 0..<count {
      var value: UInt64 = 0
      for byte in 0..<width {
        value |= UInt64(buffer[offset + byte]) << (8 * UInt64(byte))
      }
      result[index] = value
      offset += width
    }
    return result
  }

  /// The 4- or 2-bit elements, from `raw_data` or from `int32_data` (one packed byte per entry),
  /// lowest bits first.
  func packed(bitsPerElement: Int, typed packed: [UInt64]) throws(ModelFormatsError) -> [UInt8] {
    let perByte = 8 / bitsPerElement
    let byteCount = count / perByte + (count % perByte == 0 ? 0 : 1)
    let bytes: [UInt8]
    if let raw {
      try checkRawLength(raw, bytes: (byteCount, false))
      bytes = Array(buffer[raw])
    } else {
      guard packed.count == byteCount else {
        throw mismatch(found: packed.count * perByte)
      }
      bytes = packed.map { UInt8(truncatingIfNeeded: $0) }
    }
    var result: [UInt8] = []
    result.reserveCapacity(count)
    let mask = UInt8((1 << bitsPerElement) - 1)
    for index in 0..<count {
      let byte = bytes[index / perByte]
      result.append((byte >> UInt8(bitsPerElement * (index % perByte))) & mask)
    }
    return result
  }

  /// A typed field's values after checking that there is one per element.
  func checked<Element>(_ values: [Element]) throws(ModelFormatsError) -> [Element] {
    guard values.count == count else { throw mismatch(found: values.count) }
    return values
  }

  private func checkRawLength(_ raw: Range<Int>, bytes: (partialValue: Int, overflow: Bool))
    throws(ModelFormatsError)
  {
    guard !bytes.overflow, raw.count == bytes.partialValue else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' (\(type)) has \(raw.count) bytes of raw data for \(count) elements")
    }
  }

  private func mismatch(found: Int) -> ModelFormatsError {
    ModelFormatsError(
      .malformedFile, "tensor '\(name)' (\(type)) has \(found) values for \(count) elements")
  }
}
