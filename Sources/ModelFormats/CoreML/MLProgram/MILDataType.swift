/// A MIL element type; raw values are MIL.proto's `DataType` numbers.
package enum MILDataType: Int, Sendable, CaseIterable {
  /// Unset.
  case unused = 0
  /// Boolean.
  case bool = 1
  /// Text.
  case string = 2
  /// IEEE half precision.
  case float16 = 10
  /// IEEE single precision.
  case float32 = 11
  /// IEEE double precision.
  case float64 = 12
  /// bfloat16.
  case bfloat16 = 13
  /// Signed 8-bit integer.
  case int8 = 21
  /// Signed 16-bit integer.
  case int16 = 22
  /// Signed 32-bit integer.
  case int32 = 23
  /// Signed 64-bit integer.
  case int64 = 24
  /// Signed 4-bit integer.
  case int4 = 25
  /// Unsigned 8-bit integer.
  case uint8 = 31
  /// Unsigned 16-bit integer.
  case uint16 = 32
  /// Unsigned 32-bit integer.
  case uint32 = 33
  /// Unsigned 64-bit integer.
  case uint64 = 34
  /// Unsigned 4-bit integer.
  case uint4 = 35
  /// Unsigned 2-bit integer.
  case uint2 = 36
  /// Unsigned 1-bit integer.
  case uint1 = 37
  /// Unsigned 6-bit integer.
  case uint6 = 38
  /// Unsigned 3-bit integer.
  case uint3 = 39
  /// 8-bit float, 4 exponent and 3 mantissa bits, no infinities.
  case float8E4M3FN = 40
  /// 8-bit float, 5 exponent and 2 mantissa bits.
  case float8E5M2 = 41
}
