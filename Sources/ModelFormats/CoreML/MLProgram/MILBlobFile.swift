import NeuralCore

/// A MIL blob storage file (`weights/weight.bin` of an ML package), read from memory.
///
/// Version 2 of the format: a 64-byte header (`UInt32` blob count, `UInt32` version 2, reserved
/// bytes), then per blob a 64-byte metadata record (`UInt32` sentinel 0xDEADBEEF, `UInt32` data
/// type, `UInt64` size in bytes, `UInt64` offset of the data, reserved bytes) and its data, each
/// 64-byte aligned, all little-endian. A program's `blobFileValue` gives the metadata record's
/// offset. Every offset and size is checked against the file before it is used.
package struct MILBlobFile: Sendable {
  /// One blob's data: its element type and where its bytes are in the file.
  package struct Blob: Sendable, Equatable {
    /// The element type.
    package var dataType: MILBlobDataType
    /// The data's byte range in ``MILBlobFile/bytes``.
    package var range: Range<Int>
  }

  /// The file's bytes.
  package let bytes: [UInt8]
  /// The number of blobs the header announces.
  package let blobCount: Int
  private let limits: ImportLimits

  /// The size of the header and of each metadata record, and the alignment of both.
  static let recordSize = 64
  /// The value that opens each metadata record.
  static let sentinel: UInt32 = 0xDEAD_BEEF

  /// Checks a blob file's header.
  ///
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - limits: Bounds on the file's size and on element counts.
  /// - Throws: ``ModelFormatsError``: `malformedFile` for a file shorter than its header or a count
  ///   the file cannot hold, `unsupported` for another storage version, `limitExceeded` past
  ///   ``ImportLimits/maximumFileBytes``.
  package init(bytes: [UInt8], limits: ImportLimits = .default) throws(ModelFormatsError) {
    try limits.checkFileSize(bytes.count, of: "MIL blob file")
    guard bytes.count >= Self.recordSize else {
      throw Self.malformed("the file has \(bytes.count) bytes, fewer than its 64-byte header")
    }
    let count = Int(Self.uint32(bytes, at: 0))
    let version = Self.uint32(bytes, at: 4)
    guard version == 2 else {
      throw ModelFormatsError(
        .unsupported, "MIL blob file: storage version \(version), only version 2 is read")
    }
    // Each blob takes at least its metadata record.
    let room = (bytes.count - Self.recordSize) / Self.recordSize
    guard count <= room else {
      throw Self.malformed(
        "the header counts \(count) blobs, but \(bytes.count) bytes hold at most \(room)")
    }
    self.bytes = bytes
    self.blobCount = count
    self.limits = limits
  }

  /// The blob whose metadata record is at `offset`.
  ///
  /// - Parameter offset: The metadata record's offset, as a `blobFileValue` gives it.
  /// - Returns: The blob's type and data range.
  /// - Throws: `malformedFile` for an offset or size outside the file, a misaligned offset or a
  ///   bad sentinel, `unsupported` for an unknown data type.
  package func blob(at offset: UInt64) throws(ModelFormatsError) -> Blob {
    let size = UInt64(bytes.count)
    let record = UInt64(Self.recordSize)
    guard offset >= record, offset <= size, size - offset >= record else {
      throw Self.malformed(
        "blob metadata at offset \(offset) is outside the \(bytes.count)-byte file")
    }
    guard offset % record == 0 else {
      throw Self.malformed("blob metadata at offset \(offset) is not 64-byte aligned")
    }
    let start = Int(offset)
    let sentinel = Self.uint32(bytes, at: start)
    guard sentinel == Self.sentinel else {
      throw Self.malformed(
        "blob metadata at offset \(offset) has sentinel 0x\(String(sentinel, radix: 16)), "
          + "not 0xdeadbeef")
    }
    let rawType = Self.uint32(bytes, at: start + 4)
    guard let dataType = MILBlobDataType(rawValue: rawType) else {
      throw ModelFormatsError(
        .unsupported, "MIL blob file: blob at offset \(offset) has unknown data type \(rawType)")
    }
    let byteCount = Self.uint64(bytes, at: start + 8)
    let dataOffset = Self.uint64(bytes, at: start + 16)
    guard dataOffset >= offset + record else {
      throw Self.malformed(
        "blob at offset \(offset) puts its data at \(dataOffset), inside or before its metadata")
    }
    guard dataOffset <= size, byteCount <= size - dataOffset else {
      throw Self.malformed(
        "blob at offset \(offset) has \(byteCount) bytes at offset \(dataOffset), past the end "
          + "of the \(bytes.count)-byte file")
    }
    return Blob(dataType: dataType, range: Int(dataOffset)..<Int(dataOffset + byteCount))
  }

  /// A floating-point blob's values as float32, converted exactly (NaN and infinities kept).
  ///
  /// - Parameters:
  ///   - offset: The metadata record's offset.
  ///   - count: The number of elements the program's type gives; `nil` takes the blob's size.
  /// - Returns: The values.
  /// - Throws: `malformedFile` for a bad blob, a non-float blob or a count that does not match
  ///   the blob's size, `limitExceeded` past ``ImportLimits/maximumElementCount``.
  package func floats(at offset: UInt64, count: Int? = nil) throws(ModelFormatsError) -> [Float] {
    let blob = try blob(at: offset)
    guard blob.dataType.isFloatingPoint else {
      throw Self.malformed("blob at offset \(offset) holds \(blob.dataType), not floats")
    }
    let count = try elementCount(of: blob, offset: offset, expected: count)
    let start = blob.range.lowerBound
    switch blob.dataType {
    case .float32:
      return CoreMLMessage.littleEndianFloats(bytes[start..<(start + 4 * count)])
    case .float16, .bfloat16:
      let format: ONNXDataType = blob.dataType == .float16 ? .float16 : .bfloat16
      return (0..<count).map { index in
        MiniFloat.decode(UInt32(Self.uint16(bytes, at: start + 2 * index)), as: format)
      }
    default:
      let format: ONNXDataType = blob.dataType == .float8E4M3FN ? .float8E4M3FN : .float8E5M2
      return bytes[start..<(start + count)].map { MiniFloat.decode(UInt32($0), as: format) }
    }
  }

  /// An integer blob's values; sub-byte elements are unpacked from each byte's least
  /// significant bit up, as MILBlob packs them, and `int4` is sign-extended.
  ///
  /// - Parameters:
  ///   - offset: The metadata record's offset.
  ///   - count: The number of elements the program's type gives; `nil` takes every whole
  ///     element the blob's bytes hold.
  /// - Returns: The values.
  /// - Throws: `malformedFile` for a bad blob, a float blob or a count that does not match the
  ///   blob's size, `limitExceeded` past ``ImportLimits/maximumElementCount``.
  package func integers(at offset: UInt64, count: Int? = nil) throws(ModelFormatsError) -> [Int] {
    let blob = try blob(at: offset)
    guard !blob.dataType.isFloatingPoint else {
      throw Self.malformed("blob at offset \(offset) holds \(blob.dataType), not integers")
    }
    let count = try elementCount(of: blob, offset: offset, expected: count)
    let start = blob.range.lowerBound
    let type = blob.dataType
    let bits = type.bitWidth
    if type.isSubByte {
      let mask = (1 << bits) - 1
      return (0..<count).map { index in
        let bit = index * bits
        let byte = start + bit / 8
        var word = Int(bytes[byte])
        if byte + 1 < blob.range.upperBound { word |= Int(bytes[byte + 1]) << 8 }
        let value = (word >> (bit % 8)) & mask
        return type.isSigned && value >= 1 << (bits - 1) ? value - (1 << bits) : value
      }
    }
    return (0..<count).map { index in
      switch type {
      case .int8: Int(Int8(bitPattern: bytes[start + index]))
      case .int16: Int(Int16(bitPattern: Self.uint16(bytes, at: start + 2 * index)))
      case .uint16: Int(Self.uint16(bytes, at: start + 2 * index))
      case .int32: Int(Int32(bitPattern: Self.uint32(bytes, at: start + 4 * index)))
      case .uint32: Int(Self.uint32(bytes, at: start + 4 * index))
      default: Int(bytes[start + index])
      }
    }
  }

  /// The number of elements of a blob, checked against its size and the element limit.
  private func elementCount(of blob: Blob, offset: UInt64, expected: Int?) throws(ModelFormatsError)
    -> Int
  {
    let bits = blob.dataType.bitWidth
    let byteCount = blob.range.count
    let count: Int
    if let expected {
      guard expected >= 0, expected <= limits.maximumElementCount else {
        throw ModelFormatsError(
          .limitExceeded,
          "MIL blob file: \(expected) elements asked of the blob at offset \(offset), above the "
            + "limit \(limits.maximumElementCount)")
      }
      guard (expected * bits + 7) / 8 == byteCount else {
        throw Self.malformed(
          "blob at offset \(offset) has \(byteCount) bytes, not the \((expected * bits + 7) / 8) "
            + "that \(expected) \(blob.dataType) elements take")
      }
      count = expected
    } else {
      guard bits < 8 || (byteCount * 8) % bits == 0 else {
        throw Self.malformed(
          "blob at offset \(offset) has \(byteCount) bytes, not a whole number of "
            + "\(blob.dataType) elements")
      }
      count = byteCount * 8 / bits
    }
    guard count <= limits.maximumElementCount else {
      throw ModelFormatsError(
        .limitExceeded,
        "MIL blob file: the blob at offset \(offset) has \(count) elements, above the limit "
          + "\(limits.maximumElementCount)")
    }
    return count
  }

  private static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
  }

  private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
  }

  private static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
  }

  private static func malformed(_ message: String) -> ModelFormatsError {
    ModelFormatsError(.malformedFile, "MIL blob file: \(message)")
  }
}
