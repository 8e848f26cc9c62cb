import CNative
package import Foundation

/// Feature prints made during an index update, appended to a file beside the index as they are
/// made (`INDEX.journal`), so an interrupted update does not make them again.
///
/// The journal is an optimization, never a source of truth: a print is looked up by the SHA-256
/// of the picture it was made from and by the embedder that made it; a record cut short by a
/// crash, or damaged, ends the reading there; a journal of another embedder is discarded; and
/// a journal that cannot be written is simply not kept. The update removes it once the index
/// is written. Memory stays bounded: only each record's position is held.
package struct EmbeddingJournal {
  private static let magic = Array("VCJRNL01".utf8)

  /// The journal file.
  package let url: URL
  private let embedder: String
  private var handle: FileHandle?
  private var offsets: [String: (offset: UInt64, count: Int)] = [:]
  private var end: UInt64 = 0

  /// Opens the journal of the index at `location` (beside a file; in the temporary folder for a
  /// database), keeping the records `embedder` made.
  package init(for location: String, embedder: String) throws(SearchError) {
    url = Self.url(for: location)
    self.embedder = embedder
    if let data = try? Data(contentsOf: url) {
      read(data)
    }
    openForAppending()
  }

  /// The journal's place for an index location.
  static func url(for location: String) -> URL {
    guard PostgresLocation.isPostgres(location) else {
      return URL(fileURLWithPath: location + ".journal")
    }
    let digest = Array(location.utf8).withUnsafeBytes { cnc_crc32(0, $0.baseAddress, $0.count) }
    return FileManager.default.temporaryDirectory.appendingPathComponent(
      "vision-catalog-index-\(String(digest, radix: 16)).journal")
  }

  /// The print journaled for a picture's content hash.
  package func vector(for contentHash: String) -> [Float]? {
    guard let (offset, count) = offsets[contentHash], let handle else { return nil }
    do {
      try handle.seek(toOffset: offset)
      guard let bytes = try handle.read(upToCount: 4 * count), bytes.count == 4 * count else {
        return nil
      }
      try handle.seekToEnd()
      return bytes.withUnsafeBytes { raw in
        (0..<count).map {
          Float(
            bitPattern: UInt32(
              littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
        }
      }
    } catch {
      return nil
    }
  }

  /// Appends a print; a failed write drops the journal (the update goes on without it).
  package mutating func append(_ vector: [Float], for contentHash: String) {
    guard let handle, !contentHash.isEmpty else { return }
    var record = ByteWriter()
    record.append(contentHash)
    record.append(UInt32(vector.count))
    for value in vector {
      record.append(value.bitPattern)
    }
    let checksum = record.bytes.withUnsafeBytes { cnc_crc32(0, $0.baseAddress, $0.count) }
    record.append(checksum)
    do {
      try handle.seekToEnd()
      try handle.write(contentsOf: record.bytes)
      let start = end + UInt64(record.bytes.count - 4 - 4 * vector.count)
      offsets[contentHash] = (start, vector.count)
      end += UInt64(record.bytes.count)
    } catch {
      try? handle.close()
      self.handle = nil
    }
  }

  /// Deletes the journal (after the index was written).
  package mutating func remove() {
    try? handle?.close()
    handle = nil
    try? FileManager.default.removeItem(at: url)
  }

  /// Reads the records of a journal made by this embedder, up to the first damaged one.
  private mutating func read(_ data: Data) {
    data.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      guard (try? reader.bytes(8)) == Self.magic, (try? reader.string()) == embedder else {
        return
      }
      end = UInt64(reader.position)
      while !reader.isAtEnd {
        let start = reader.position
        guard let hash = try? reader.string(limit: 64), let count = try? reader.uint32(),
          count <= 65_536, let values = try? reader.bytes(4 * Int(count)),
          let stored = try? reader.uint32()
        else { return }
        let record = UnsafeRawBufferPointer(rebasing: raw[start..<(reader.position - 4)])
        guard cnc_crc32(0, record.baseAddress, record.count) == stored else { return }
        offsets[hash] = (UInt64(reader.position - 4 - values.count), Int(count))
        end = UInt64(reader.position)
      }
    }
  }

  /// Opens the file for appending after its last good record, starting a new one when there
  /// is none.
  private mutating func openForAppending() {
    do {
      if end == 0 {
        var header = ByteWriter()
        header.append(Self.magic)
        header.append(embedder)
        try Data(header.bytes).write(to: url)
        end = UInt64(header.bytes.count)
        offsets = [:]
      }
      let handle = try FileHandle(forUpdating: url)
      try handle.truncate(atOffset: end)
      try handle.seekToEnd()
      self.handle = handle
    } catch {
      handle = nil
    }
  }
}
