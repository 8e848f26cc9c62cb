/// The element type of one blob in a MIL blob file; raw values are MILBlob's `BlobDataType`.
package enum MILBlobDataType: UInt32, Sendable, CaseIterable {
  /// IEEE half precision.
  case float16 = 1
  /// IEEE single precision.
  case float32 = 2
  /// Unsigned 8-bit integer.
  case uint8 = 3
  /// Signed 8-bit integer.
  case int8 = 4
  /// bfloat16.
  case bfloat16 = 5
  /// Signed 16-bit integer.
  case int16 = 6
  /// Unsigned 16-bit integer.
  case uint16 = 7
  /// Signed 4-bit integer, two's complement.
  case int4 = 8
  /// Unsigned 1-bit integer.
  case uint1 = 9
  /// Unsigned 2-bit integer.
  case uint2 = 10
  /// Unsigned 4-bit integer.
  case uint4 = 11
  /// Unsigned 3-bit integer.
  case uint3 = 12
  /// Unsigned 6-bit integer.
  case uint6 = 13
  /// Signed 32-bit integer.
  case int32 = 14
  /// Unsigned 32-bit integer.
  case uint32 = 15
  /// 8-bit float, 4 exponent and 3 mantissa bits, no infinities.
  case float8E4M3FN = 16
  /// 8-bit float, 5 exponent and 2 mantissa bits.
  case float8E5M2 = 17

  /// The bits one element takes.
  package var bitWidth: Int {
    switch self {
    case .uint1: 1
    case .uint2: 2
    case .uint3: 3
    case .int4, .uint4: 4
    case .uint6: 6
    case .uint8, .int8, .float8E4M3FN, .float8E5M2: 8
    case .float16, .bfloat16, .int16, .uint16: 16
    case .float32, .int32, .uint32: 32
    }
  }

  /// Whether elements are packed several to a byte.
  package var isSubByte: Bool { bitWidth < 8 }

  /// Whether elements are floating point.
  package var isFloatingPoint: Bool {
    switch self {
    case .float16, .float32, .bfloat16, .float8E4M3FN, .float8E5M2: true
    default: false
    }
  }

  /// Whether integer elements are signed.
  var isSigned: Bool {
    switch self {
    case .int4, .int8, .int16, .int32: true
    default: false
    }
  }
}
