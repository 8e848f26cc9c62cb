import CNative
import Foundation
import NeuralCore

/// Writes an index file (layout in ``IndexFileHeader``) to a temporary file beside the target,
/// streaming the rows with bounded memory, syncs it, then renames it over the target: a failure
/// or a crash at any point leaves the old file as it was.
struct IndexFileWriter {
  /// One row as it goes into the file: encoded values (`stride` of them) and the int8 scale.
  typealias Row = (bytes: [UInt8], scale: Float?)

  let dimensions: Int
  let encoding: VectorSimilarity.Encoding
  let embedder: String
  let pictures: [IndexedPicture]

  /// Writes the file.
  ///
  /// - Parameters:
  ///   - url: The index file.
  ///   - row: Row `i`'s encoded values, asked for in order, once each.
  /// - Throws: ``SearchError`` with code `storage` when a write fails.
  func write(to url: URL, row: (Int) throws(SearchError) -> Row) throws(SearchError) {
    let records = recordBytes()
    var header = IndexFileHeader(
      dimensions: dimensions, encoding: encoding, count: pictures.count,
      recordsLength: records.count)
    Self.removeAbandonedFiles(for: url)
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      "\(Self.partialPrefix(for: url))\(ProcessInfo.processInfo.processIdentifier)")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw SearchError(.storage, "cannot create \(temporary.path)")
    }
    do {
      let handle = try FileHandle(forWritingTo: temporary)
      defer { try? handle.close() }
      try handle.write(contentsOf: [UInt8](repeating: 0, count: IndexFileHeader.size))
      let scales = try writeRows(to: handle, header: &header, row: row)
      if encoding == .int8 {
        let scaleBytes = scales.withUnsafeBytes { Array($0) }
        header.scalesChecksum = scaleBytes.withUnsafeBytes {
          cnc_crc32(0, $0.baseAddress, $0.count)
        }
        try handle.write(contentsOf: scaleBytes)
      }
      header.recordsChecksum = records.withUnsafeBytes { cnc_crc32(0, $0.baseAddress, $0.count) }
      try handle.write(contentsOf: records)
      try handle.seek(toOffset: 0)
      try handle.write(contentsOf: header.bytes)
      try handle.synchronize()
    } catch let error as SearchError {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw SearchError(
        .storage, "cannot write the index \(url.path): \(error.localizedDescription)")
    }
    let status = cnf_replace(temporary.path, url.path)
    guard status == 0 else {
      try? FileManager.default.removeItem(at: temporary)
      throw SearchError(
        .storage,
        "cannot replace \(url.path): "
          + NSError(domain: NSPOSIXErrorDomain, code: Int(status)).localizedDescription)
    }
  }

  /// The start of a temporary file's name; the writer's process id follows.
  static func partialPrefix(for url: URL) -> String {
    ".\(url.lastPathComponent).partial-"
  }

  /// Removes temporary files of writers that were killed (their process is gone).
  static func removeAbandonedFiles(for url: URL) {
    let folder = url.deletingLastPathComponent()
    let prefix = partialPrefix(for: url)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for name in names where name.hasPrefix(prefix) {
      guard let pid = Int(name.dropFirst(prefix.count)),
        !FileManager.default.fileExists(atPath: "/proc/\(pid)")
      else { continue }
      try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
  }

  /// Streams the rows in chunks of about 4 MB, checksumming them; returns the scales.
  private func writeRows(
    to handle: FileHandle, header: inout IndexFileHeader, row: (Int) throws(SearchError) -> Row
  ) throws -> [Float] {
    let rowLength = header.stride * encoding.bytesPerValue
    var checksum: UInt32 = 0
    var scales: [Float] = []
    var chunk: [UInt8] = []
    chunk.reserveCapacity(max(rowLength, 4 << 20))
    for index in 0..<pictures.count {
      let (bytes, scale) = try row(index)
      guard bytes.count == rowLength else {
        throw SearchError(
          .invalidArgument, "row \(index) has \(bytes.count) bytes, not \(rowLength)")
      }
      chunk += bytes
      if encoding == .int8 { scales.append(scale ?? 1) }
      if chunk.count >= 4 << 20 || index == pictures.count - 1 {
        checksum = chunk.withUnsafeBytes { cnc_crc32(checksum, $0.baseAddress, $0.count) }
        try handle.write(contentsOf: chunk)
        chunk.removeAll(keepingCapacity: true)
      }
    }
    header.vectorsChecksum = checksum
    return scales
  }

  private func recordBytes() -> [UInt8] {
    var writer = ByteWriter()
    writer.append(embedder)
    for picture in pictures {
      writer.append(picture.productId)
      writer.append(picture.name)
      writer.append(picture.category)
      writer.append(picture.source)
      writer.append(ContentHash.bytes(picture.contentHash) ?? [UInt8](repeating: 0, count: 32))
    }
    return writer.bytes
  }
}
