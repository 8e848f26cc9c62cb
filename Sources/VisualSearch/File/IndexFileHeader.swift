import CNative
import NeuralCore

/// The fixed 128 bytes at the start of an index file.
///
/// Little-endian, laid out as:
///
/// | offset | field |
/// |---|---|
/// | 0 | magic `VCSRCHIX` |
/// | 8 | format version (u32, 1) |
/// | 12 | dimensions (u32) |
/// | 16 | encoding (u8: 1 half, 2 int8), 7 zero bytes |
/// | 24 | pictures (u64) |
/// | 32 | stride: values from one row to the next (u64) |
/// | 40 | offset of the vectors (u64) |
/// | 48 | offset of the int8 scales (u64; 0 for half) |
/// | 56 | offset of the records (u64) |
/// | 64 | length of the records (u64) |
/// | 72 | length of the whole file (u64) |
/// | 80 | CRC-32 of the vectors, of the scales, of the records (3 x u32) |
/// | 92 | zero up to 124 |
/// | 124 | CRC-32 of bytes 0..<124 (u32) |
///
/// The vectors follow at byte 128, one row of `stride` values each (the dimensions rounded up
/// to 32, zero-padded: 64-byte rows of half floats); then the scales (one f32 per row) for int8;
/// then the records: the embedder, then per picture its product id, name, category, source
/// (each a u32 length and UTF-8 bytes) and its 32-byte SHA-256 (zero when unknown).
package struct IndexFileHeader: Equatable {
  static let size = 128
  static let magic = Array("VCSRCHIX".utf8)
  static let version: UInt32 = 1
  /// Values per row are a multiple of this.
  static let rowAlignment = 32

  /// Values in one feature print.
  package var dimensions: Int
  var encoding: VectorSimilarity.Encoding
  var count: Int
  var stride: Int
  var vectorsOffset: Int
  var scalesOffset: Int
  var recordsOffset: Int
  var recordsLength: Int
  var fileLength: Int
  var vectorsChecksum: UInt32 = 0
  var scalesChecksum: UInt32 = 0
  var recordsChecksum: UInt32 = 0

  /// The layout of a file of `count` rows and `recordsLength` bytes of records.
  init(
    dimensions: Int, encoding: VectorSimilarity.Encoding, count: Int, recordsLength: Int
  ) {
    self.dimensions = dimensions
    self.encoding = encoding
    self.count = count
    let alignment = Self.rowAlignment
    stride = (dimensions + alignment - 1) / alignment * alignment
    vectorsOffset = Self.size
    let vectorBytes = count * stride * encoding.bytesPerValue
    scalesOffset = encoding == .int8 ? vectorsOffset + vectorBytes : 0
    recordsOffset = vectorsOffset + vectorBytes + (encoding == .int8 ? 4 * count : 0)
    self.recordsLength = recordsLength
    fileLength = recordsOffset + recordsLength
  }

  /// Bytes of the vector rows.
  var vectorBytes: Int { count * stride * encoding.bytesPerValue }

  /// The 128 bytes, with the header's own checksum.
  var bytes: [UInt8] {
    var writer = ByteWriter()
    writer.append(Self.magic)
    writer.append(Self.version)
    writer.append(UInt32(dimensions))
    writer.append([encoding.rawValue, 0, 0, 0, 0, 0, 0, 0])
    for value in [
      count, stride, vectorsOffset, scalesOffset, recordsOffset, recordsLength, fileLength,
    ] {
      writer.append(UInt64(value))
    }
    writer.append(vectorsChecksum)
    writer.append(scalesChecksum)
    writer.append(recordsChecksum)
    writer.append([UInt8](repeating: 0, count: 124 - writer.bytes.count))
    let checksum = writer.bytes.withUnsafeBytes { cnc_crc32(0, $0.baseAddress, $0.count) }
    writer.append(checksum)
    return writer.bytes
  }

  /// Reads and checks a header: magic, version, its checksum, and a layout that fits a file of
  /// `available` bytes.
  init(_ bytes: UnsafeRawBufferPointer, available: Int) throws(SearchError) {
    guard bytes.count >= Self.size else {
      throw SearchError(
        .invalidIndex, "the file has \(bytes.count) bytes, shorter than an index header")
    }
    var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[0..<Self.size]))
    guard try reader.bytes(8) == Self.magic else {
      throw SearchError(.invalidIndex, "not a VisionCatalog index (no VCSRCHIX magic)")
    }
    let stored = UnsafeRawBufferPointer(rebasing: bytes[124..<128]).loadUnaligned(as: UInt32.self)
    let computed = cnc_crc32(0, bytes.baseAddress, 124)
    guard UInt32(littleEndian: stored) == computed else {
      throw SearchError(.invalidIndex, "the index header is damaged (checksum mismatch)")
    }
    let version = try reader.uint32()
    guard version == Self.version else {
      throw SearchError(
        .invalidIndex, "index format version \(version) is not supported (this build reads 1)")
    }
    dimensions = Int(try reader.uint32())
    let encodingByte = try reader.bytes(8)[0]
    guard let encoding = VectorSimilarity.Encoding(rawValue: encodingByte) else {
      throw SearchError(.invalidIndex, "unknown vector encoding \(encodingByte)")
    }
    self.encoding = encoding
    count = try reader.length()
    stride = try reader.length()
    vectorsOffset = try reader.length()
    scalesOffset = try reader.length()
    recordsOffset = try reader.length()
    recordsLength = try reader.length()
    fileLength = try reader.length()
    vectorsChecksum = try reader.uint32()
    scalesChecksum = try reader.uint32()
    recordsChecksum = try reader.uint32()
    try checkLayout(available: available)
  }

  /// Whether the sections are where a writer puts them and inside the file.
  private func checkLayout(available: Int) throws(SearchError) {
    guard fileLength == available else {
      throw SearchError(
        .invalidIndex,
        "the index should have \(fileLength) bytes but has \(available) (truncated or damaged)")
    }
    guard (1...65_536).contains(dimensions), count <= 1 << 32, recordsLength <= available else {
      throw SearchError(
        .invalidIndex, "the index declares \(count) feature prints of \(dimensions) values")
    }
    let expected = IndexFileHeader(
      dimensions: dimensions, encoding: encoding, count: count, recordsLength: recordsLength)
    guard
      stride == expected.stride, vectorsOffset == expected.vectorsOffset,
      scalesOffset == expected.scalesOffset, recordsOffset == expected.recordsOffset,
      fileLength == expected.fileLength
    else {
      throw SearchError(.invalidIndex, "the index's sections are not where they belong")
    }
  }
}
