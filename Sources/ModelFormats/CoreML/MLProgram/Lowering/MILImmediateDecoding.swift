import NeuralCore

/// Reads the elements of an immediate `TensorValue` as the program's data type gives them:
/// Float16 and BFloat16 (and 8-bit integers) arrive as little-endian `bytes`.
enum MILImmediateDecoding {
  static func values(_ tensor: MILTensorValue, type: MILDataType, what: String)
    throws(ModelFormatsError) -> MILConstant.Values
  {
    switch tensor {
    case .floats(let values): return .floats(values)
    case .doubles(let values): return .floats(values.map { Float($0) })
    case .ints(let values):
      return MILProgramLowering.isFloat(type)
        ? .floats(values.map { Float($0) }) : .integers(values.map { Int64($0) })
    case .longInts(let values):
      return MILProgramLowering.isFloat(type)
        ? .floats(values.map { Float($0) }) : .integers(values)
    case .bools(let values): return .bools(values)
    case .strings(let values): return .strings(values)
    case .bytes(let bytes): return try fromBytes(bytes, type: type, what: what)
    }
  }

  /// Little-endian integers of 2, 4 or 8 bytes each.
  private static func integers(_ bytes: [UInt8], type: MILDataType, what: String)
    throws(ModelFormatsError) -> [Int64]
  {
    let width: Int
    switch type {
    case .int16, .uint16: width = 2
    case .int32, .uint32: width = 4
    default: width = 8
    }
    guard bytes.count % width == 0 else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: \(what) has \(bytes.count) bytes of \(width)-byte integers")
    }
    let signed = type == .int16 || type == .int32 || type == .int64
    return stride(from: 0, to: bytes.count, by: width).map { start in
      var bits: UInt64 = 0
      for index in 0..<width { bits |= UInt64(bytes[start + index]) << (8 * index) }
      guard signed, width < 8 else { return Int64(bitPattern: bits) }
      // Sign-extend from the element's width.
      let shift = UInt64(64 - 8 * width)
      return Int64(bitPattern: bits << shift) >> Int64(shift)
    }
  }

  private static func fromBytes(_ bytes: [UInt8], type: MILDataType, what: String)
    throws(ModelFormatsError) -> MILConstant.Values
  {
    switch type {
    case .float16, .bfloat16:
      guard bytes.count % 2 == 0 else {
        throw ModelFormatsError(
          .malformedFile, "ML Program: \(what) has \(bytes.count) bytes of 16-bit floats")
      }
      let format: ONNXDataType = type == .float16 ? .float16 : .bfloat16
      return .floats(
        stride(from: 0, to: bytes.count, by: 2).map { index in
          MiniFloat.decode(UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8, as: format)
        })
    case .float8E4M3FN, .float8E5M2:
      let format: ONNXDataType = type == .float8E4M3FN ? .float8E4M3FN : .float8E5M2
      return .floats(bytes.map { MiniFloat.decode(UInt32($0), as: format) })
    case .int16, .uint16, .int32, .uint32, .int64, .uint64:
      return .integers(try integers(bytes, type: type, what: what))
    case .int8: return .integers(bytes.map { Int64(Int8(bitPattern: $0)) })
    case .uint8: return .integers(bytes.map { Int64($0) })
    case .bool: return .bools(bytes.map { $0 != 0 })
    default:
      throw ModelFormatsError(
        .unsupported, "ML Program: \(what) holds \(type) values as bytes, which are not read")
    }
  }
}
