import CNative
package import Foundation
package import NeuralCore

/// An index file mapped into memory and checked: header, checksums of every section, and its
/// records parsed (the layout is in ``IndexFileHeader``).
package final class IndexFile: @unchecked Sendable {
  // Safety (@unchecked): every property is set once in init and never changes; `data` maps the
  // file read-only and nothing writes through the pointers derived from it.

  /// The header, checked against the file.
  package let header: IndexFileHeader
  let embedder: String
  /// The pictures, one per row.
  package let pictures: [IndexedPicture]
  /// Per row, the category's position in `categories`.
  let categoryOfRow: [UInt32]
  let categories: [String: UInt32]
  /// The most pictures any one product has.
  let mostPicturesPerProduct: Int
  private let data: Data

  /// Maps and checks the file at `url`.
  convenience init(contentsOf url: URL) throws(SearchError) {
    let data: Data
    do {
      data = try Data(contentsOf: url, options: .alwaysMapped)
    } catch {
      throw SearchError(
        .storage, "cannot read the index \(url.path): \(error.localizedDescription)")
    }
    try self.init(data: data)
  }

  /// Checks an index held in memory (the whole file, or its mapping).
  package init(data: Data) throws(SearchError) {
    self.data = data
    let parsed: (header: IndexFileHeader, embedder: String, pictures: [IndexedPicture])
    do {
      parsed = try data.withUnsafeBytes { try Self.parse($0) }
    } catch let error as SearchError {
      throw error
    } catch {
      throw SearchError(.invalidIndex, "cannot read the index: \(error)")
    }
    header = parsed.header
    embedder = parsed.embedder
    pictures = parsed.pictures
    var categories: [String: UInt32] = [:]
    var perProduct: [String: Int] = [:]
    categoryOfRow = pictures.map { picture in
      perProduct[picture.productId, default: 0] += 1
      if let known = categories[picture.category] { return known }
      let next = UInt32(categories.count)
      categories[picture.category] = next
      return next
    }
    self.categories = categories
    mostPicturesPerProduct = perProduct.values.max() ?? 0
  }

  private static func parse(_ bytes: UnsafeRawBufferPointer) throws(SearchError) -> (
    header: IndexFileHeader, embedder: String, pictures: [IndexedPicture]
  ) {
    let header = try IndexFileHeader(bytes, available: bytes.count)
    let vectors = UnsafeRawBufferPointer(
      rebasing: bytes[header.vectorsOffset..<(header.vectorsOffset + header.vectorBytes)])
    try check(vectors, header.vectorsChecksum, "feature prints")
    if header.encoding == .int8 {
      let scales = UnsafeRawBufferPointer(
        rebasing: bytes[header.scalesOffset..<(header.scalesOffset + 4 * header.count)])
      try check(scales, header.scalesChecksum, "scales")
    }
    let records = UnsafeRawBufferPointer(
      rebasing: bytes[header.recordsOffset..<(header.recordsOffset + header.recordsLength)])
    try check(records, header.recordsChecksum, "records")
    var reader = ByteReader(records)
    let embedder = try reader.string()
    var pictures: [IndexedPicture] = []
    pictures.reserveCapacity(min(header.count, records.count / 48))
    for _ in 0..<header.count {
      pictures.append(try readPicture(&reader))
    }
    guard reader.isAtEnd else {
      throw SearchError(.invalidIndex, "the index has bytes after its last record")
    }
    return (header, embedder, pictures)
  }

  private static func check(
    _ section: UnsafeRawBufferPointer, _ expected: UInt32, _ name: String
  ) throws(SearchError) {
    guard cnc_crc32(0, section.baseAddress, section.count) == expected else {
      throw SearchError(.invalidIndex, "the index's \(name) are damaged (checksum mismatch)")
    }
  }

  private static func readPicture(_ reader: inout ByteReader) throws(SearchError)
    -> IndexedPicture
  {
    let productId = try reader.string()
    let name = try reader.string()
    let category = try reader.string()
    let source = try reader.string()
    let hash = try reader.bytes(32)
    return IndexedPicture(
      productId: productId, name: name, category: category, source: source,
      contentHash: ContentHash.hex(hash))
  }

  /// Calls `body` with the rows as the similarity kernels read them (`nil` for none).
  package func withRows<Result>(_ body: (VectorSimilarity.Rows?) -> Result) -> Result {
    data.withUnsafeBytes { bytes in
      // The header was checked against this buffer, so both sections lie inside it.
      guard let start = bytes.baseAddress, header.count > 0 else { return body(nil) }
      let scales =
        header.encoding == .int8
        ? (start + header.scalesOffset).assumingMemoryBound(to: Float.self) : nil
      return body(
        VectorSimilarity.Rows(
          base: start + header.vectorsOffset, count: header.count,
          dimensions: header.dimensions, stride: header.stride, encoding: header.encoding,
          scales: scales))
    }
  }

  /// The encoded bytes of row `row` (its scale apart), to copy into a new file unchanged.
  func rowBytes(_ row: Int) -> (bytes: [UInt8], scale: Float?) {
    data.withUnsafeBytes { bytes in
      let rowLength = header.stride * header.encoding.bytesPerValue
      let start = header.vectorsOffset + row * rowLength
      let raw = Array(bytes[start..<(start + rowLength)])
      guard header.encoding == .int8 else { return (raw, nil) }
      let scale = bytes.loadUnaligned(
        fromByteOffset: header.scalesOffset + 4 * row, as: UInt32.self)
      return (raw, Float(bitPattern: UInt32(littleEndian: scale)))
    }
  }
}
