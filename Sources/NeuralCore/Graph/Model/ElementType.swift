/// A tensor element type, as `Cast` names its target; raw values mirror `TensorProto.DataType`
/// in onnx.proto, which the operator sets the engine runs use.
///
/// A struct rather than an enum so that a graph naming a type newer than this library still
/// loads; planning an operator on such a type fails with `unsupported`.
package struct ElementType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// The `TensorProto.DataType` number.
  package let rawValue: Int32

  /// Creates a data type from its `TensorProto.DataType` number.
  ///
  /// - Parameter rawValue: The number as stored in the file.
  package init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// No type was given.
  package static let undefined = ElementType(rawValue: 0)
  /// 32-bit IEEE float.
  package static let float = ElementType(rawValue: 1)
  /// Unsigned 8-bit integer.
  package static let uint8 = ElementType(rawValue: 2)
  /// Signed 8-bit integer.
  package static let int8 = ElementType(rawValue: 3)
  /// Unsigned 16-bit integer.
  package static let uint16 = ElementType(rawValue: 4)
  /// Signed 16-bit integer.
  package static let int16 = ElementType(rawValue: 5)
  /// Signed 32-bit integer.
  package static let int32 = ElementType(rawValue: 6)
  /// Signed 64-bit integer.
  package static let int64 = ElementType(rawValue: 7)
  /// Byte string.
  package static let string = ElementType(rawValue: 8)
  /// Boolean.
  package static let bool = ElementType(rawValue: 9)
  /// 16-bit IEEE float.
  package static let float16 = ElementType(rawValue: 10)
  /// 64-bit IEEE float.
  package static let double = ElementType(rawValue: 11)
  /// Unsigned 32-bit integer.
  package static let uint32 = ElementType(rawValue: 12)
  /// Unsigned 64-bit integer.
  package static let uint64 = ElementType(rawValue: 13)
  /// Complex number of two 32-bit floats.
  package static let complex64 = ElementType(rawValue: 14)
  /// Complex number of two 64-bit floats.
  package static let complex128 = ElementType(rawValue: 15)
  /// Brain floating point: the upper 16 bits of a float32.
  package static let bfloat16 = ElementType(rawValue: 16)
  /// 8-bit float, 4 exponent bits, 3 mantissa bits, finite only.
  package static let float8E4M3FN = ElementType(rawValue: 17)
  /// 8-bit float, 4 exponent bits, 3 mantissa bits, finite only, no negative zero.
  package static let float8E4M3FNUZ = ElementType(rawValue: 18)
  /// 8-bit float, 5 exponent bits, 2 mantissa bits.
  package static let float8E5M2 = ElementType(rawValue: 19)
  /// 8-bit float, 5 exponent bits, 2 mantissa bits, finite only, no negative zero.
  package static let float8E5M2FNUZ = ElementType(rawValue: 20)
  /// Unsigned 4-bit integer, two per byte.
  package static let uint4 = ElementType(rawValue: 21)
  /// Signed 4-bit integer, two per byte.
  package static let int4 = ElementType(rawValue: 22)
  /// 4-bit float, 2 exponent bits, 1 mantissa bit, two per byte.
  package static let float4E2M1 = ElementType(rawValue: 23)
  /// 8-bit power-of-two scale: exponent bits only.
  package static let float8E8M0 = ElementType(rawValue: 24)
  /// Unsigned 2-bit integer, four per byte.
  package static let uint2 = ElementType(rawValue: 25)
  /// Signed 2-bit integer, four per byte.
  package static let int2 = ElementType(rawValue: 26)

  private static let names: [Int32: String] = [
    0: "undefined", 1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
    7: "int64", 8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz",
    19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1",
    24: "float8e8m0", 25: "uint2", 26: "int2",
  ]

  /// The values of an integer type the engine holds at run time (one `Int32` per element),
  /// or `nil` for float, 64-bit and unsupported types.
  package var integerRange: ClosedRange<Int32>? {
    switch self {
    case .uint8: 0...255
    case .int8: -128...127
    case .uint16: 0...65535
    case .int16: -32768...32767
    case .int32: Int32.min...Int32.max
    case .uint4: 0...15
    case .int4: -8...7
    case .uint2: 0...3
    case .int2: -2...1
    default: nil
    }
  }

  /// Whether the engine holds run-time values of this type as integers (``integerRange``).
  package var isHeldAsInteger: Bool { integerRange != nil }

  /// The type's name as in onnx.proto, lowercased, or its number when unknown.
  package var description: String {
    Self.names[rawValue] ?? "data type \(rawValue)"
  }
}
