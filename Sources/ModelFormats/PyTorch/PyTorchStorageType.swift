import NeuralCore

/// The element types of PyTorch's legacy typed storages (`torch.FloatStorage` and its siblings).
enum PyTorchStorageType: String, Sendable, Hashable, CaseIterable {
  case float = "FloatStorage"
  case double = "DoubleStorage"
  case half = "HalfStorage"
  case bfloat16 = "BFloat16Storage"
  case long = "LongStorage"
  case int = "IntStorage"
  case short = "ShortStorage"
  case char = "CharStorage"
  case byte = "ByteStorage"
  case bool = "BoolStorage"

  /// Bytes per element.
  var width: Int {
    switch self {
    case .double, .long: 8
    case .float, .int: 4
    case .half, .bfloat16, .short: 2
    case .char, .byte, .bool: 1
    }
  }

  /// The public element type reported in ``StateDict/Entry``.
  var elementType: StateDict.ElementType {
    switch self {
    case .float: .float32
    case .double: .float64
    case .half: .float16
    case .bfloat16: .bfloat16
    case .long: .int64
    case .int: .int32
    case .short: .int16
    case .char: .int8
    case .byte: .uint8
    case .bool: .bool
    }
  }

  /// Converts `count` little-endian elements starting at `offset` to float32.
  func floats(in bytes: [UInt8], at offset: Int, count: Int) -> [Float] {
    if self == .float {
      var result = [Float](repeating: 0, count: count)
      result.withUnsafeMutableBytes { destination in
        bytes.withUnsafeBytes { source in
          // Safety: callers check offset + 4 * count <= bytes.count, and destination holds
          // exactly 4 * count bytes.
          destination.copyMemory(
            from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + 4 * count)]))
        }
      }
      #if _endian(big)
        result = result.map { Float(bitPattern: UInt32(littleEndian: $0.bitPattern)) }
      #endif
      return result
    }
    var result = [Float](repeating: 0, count: count)
    for index in 0..<count {
      var bits: UInt64 = 0
      let start = offset + index * width
      for byte in 0..<width {
        bits |= UInt64(bytes[start + byte]) << UInt64(8 * byte)
      }
      let unused = UInt64(64 - 8 * width)
      switch self {
      case .float: result[index] = Float(bitPattern: UInt32(bits))
      case .double: result[index] = Float(Double(bitPattern: bits))
      case .half: result[index] = MiniFloat.decode(UInt32(bits), as: .float16)
      case .bfloat16: result[index] = MiniFloat.decode(UInt32(bits), as: .bfloat16)
      case .long, .int, .short, .char:
        result[index] = Float(Int64(bitPattern: bits << unused) >> Int64(unused))
      case .byte: result[index] = Float(bits)
      case .bool: result[index] = bits == 0 ? 0 : 1
      }
    }
    return result
  }
}
