/// A tensor's elements, in the representation the file chose.
package enum MILTensorValue: Sendable, Equatable {
  /// Floats (float32 tensors, and float16 ones some writers widen).
  case floats([Float])
  /// 32-bit integers (also used for narrower integer types).
  case ints([Int32])
  /// Booleans.
  case bools([Bool])
  /// Text.
  case strings([String])
  /// 64-bit integers.
  case longInts([Int64])
  /// Doubles.
  case doubles([Double])
  /// Raw bytes: the little-endian elements of float16, int8, uint8 and similar tensors.
  case bytes([UInt8])
}
