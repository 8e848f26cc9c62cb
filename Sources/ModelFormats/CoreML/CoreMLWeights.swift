import NeuralCore

/// Reads a `WeightParams` message: float32 values, float16 values, or 1 to 8-bit codes with a
/// linear (per-channel scale and bias) or look-up-table dequantization.
enum CoreMLWeights {
  /// The weights as float32, checked to hold exactly `count` values.
  ///
  /// - Parameters:
  ///   - message: The `WeightParams` message.
  ///   - count: The number of values the layer needs.
  ///   - channels: The output channels a linear quantization may give one scale and bias each.
  ///   - what: The layer and parameter, for messages.
  /// - Returns: `count` values.
  /// - Throws: `malformedFile` for a count that does not match or broken quantization
  ///   parameters, `unsupported` for a storage this reader does not know.
  static func values(
    _ message: CoreMLMessage, count: Int, channels: Int = 1, what: String
  ) throws(ModelFormatsError) -> [Float] {
    let floats = try message.floats(1)
    if !floats.isEmpty { return try checked(floats, count: count, what: what) }
    let half = message.bytes(2)
    if !half.isEmpty {
      guard half.count == count * 2 else {
        throw mismatch(what, count: count, found: "\(half.count / 2) float16 values")
      }
      var values: [Float] = []
      values.reserveCapacity(count)
      var offset = half.startIndex
      while offset < half.endIndex {
        let bits = UInt32(half[offset]) | UInt32(half[offset + 1]) << 8
        values.append(MiniFloat.decode(bits, as: .float16))
        offset += 2
      }
      return values
    }
    let raw = message.bytes(30)
    if !raw.isEmpty {
      guard let quantization = try message.message(40) else {
        // Raw bytes without quantization are little-endian float32 values.
        guard raw.count == count * 4 else {
          throw mismatch(what, count: count, found: "\(raw.count) raw bytes")
        }
        return CoreMLMessage.littleEndianFloats(raw)
      }
      return try dequantized(raw, quantization, count: count, channels: channels, what: what)
    }
    if !message.bytes(31).isEmpty {
      throw ModelFormatsError(
        .unsupported, "\(what): int8 weights for dynamic quantization are not supported")
    }
    guard count == 0 else { throw mismatch(what, count: count, found: "no values") }
    return []
  }

  /// The number of values stored as float32 or float16, or `nil` for quantized codes, whose
  /// count the layer's shape must give.
  static func storedCount(_ message: CoreMLMessage) throws(ModelFormatsError) -> Int? {
    let floats = try message.floats(1)
    if !floats.isEmpty { return floats.count }
    if !message.bytes(2).isEmpty { return message.bytes(2).count / 2 }
    let raw = message.bytes(30)
    if !raw.isEmpty { return try message.message(40) == nil ? raw.count / 4 : nil }
    return 0
  }

  /// Decodes `bits`-bit codes packed from each byte's most significant bit down.
  private static func dequantized(
    _ raw: ArraySlice<UInt8>, _ quantization: CoreMLMessage, count: Int, channels: Int,
    what: String
  ) throws(ModelFormatsError) -> [Float] {
    let bits = Int(quantization.integer(1))
    guard (1...8).contains(bits) else {
      throw ModelFormatsError(
        .malformedFile, "\(what): \(bits)-bit quantization is not 1 to 8 bits")
    }
    guard raw.count == (count * bits + 7) / 8 else {
      throw mismatch(what, count: count, found: "\(raw.count) bytes of \(bits)-bit codes")
    }
    let codes = unpacked(raw, bits: bits, count: count)
    if let table = try quantization.message(102) {
      let palette = try table.floats(1)
      guard palette.count == 1 << bits else {
        throw ModelFormatsError(
          .malformedFile,
          "\(what): a \(bits)-bit look-up table needs \(1 << bits) values, not \(palette.count)")
      }
      return codes.map { palette[Int($0)] }
    }
    guard let linear = try quantization.message(101) else {
      throw ModelFormatsError(
        .malformedFile, "\(what): quantized weights without a quantization kind")
    }
    let scales = try linear.floats(1)
    let biases = try linear.floats(2)
    let groups = scales.count
    guard groups == 1 || (groups == channels && channels > 0 && count % channels == 0),
      biases.count == groups || biases.isEmpty
    else {
      throw ModelFormatsError(
        .malformedFile,
        "\(what): linear quantization has \(scales.count) scales and \(biases.count) biases for "
          + "\(channels) channels")
    }
    let perGroup = groups == 1 ? count : count / groups
    return codes.enumerated().map { index, code in
      let group = index / max(perGroup, 1)
      return Float(code) * scales[group] + (biases.isEmpty ? 0 : biases[group])
    }
  }

  private static func unpacked(_ raw: ArraySlice<UInt8>, bits: Int, count: Int) -> [UInt8] {
    if bits == 8 { return Array(raw.prefix(count)) }
    var codes: [UInt8] = []
    codes.reserveCapacity(count)
    var bitPosition = 0
    let base = raw.startIndex
    for _ in 0..<count {
      var code = 0
      for _ in 0..<bits {
        let byte = raw[base + bitPosition / 8]
        code = code << 1 | Int(byte >> (7 - UInt8(bitPosition % 8)) & 1)
        bitPosition += 1
      }
      codes.append(UInt8(code))
    }
    return codes
  }

  private static func checked(_ values: [Float], count: Int, what: String)
    throws(ModelFormatsError) -> [Float]
  {
    guard values.count == count else {
      throw mismatch(what, count: count, found: "\(values.count) values")
    }
    return values
  }

  private static func mismatch(_ what: String, count: Int, found: String) -> ModelFormatsError {
    ModelFormatsError(
      .malformedFile, "\(what): the layer needs \(count) weights, the file has \(found)")
  }
}
