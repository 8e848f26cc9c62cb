import Foundation

/// Feature vectors saved on disk, keyed by the photo bytes' SHA-256 and the variant (the photo,
/// or one seeded augmentation of it), so a second training run extracts only what is new.
///
/// One small file per vector under `<directory>/<backbone identity>/<first two hex digits>/`,
/// written to a temporary name and renamed, so concurrent runs and interrupted runs never leave
/// a torn entry. A file that is unreadable or of the wrong size is a miss, never an error.
struct FeatureCache: Sendable {
  /// The magic at the start of an entry, then the value count (UInt32) and the values
  /// (little-endian float32).
  static let magic: [UInt8] = Array("VCFEAT1\n".utf8)

  /// The backbone's folder.
  let folder: URL
  /// The length of a vector.
  let featureCount: Int

  /// A cache in `directory` for the features of the backbone named `identity`.
  init(directory: URL, identity: String, featureCount: Int) {
    folder = directory.appendingPathComponent(identity, isDirectory: true)
    self.featureCount = featureCount
  }

  /// The entry file of a key.
  private func url(for key: String) -> URL {
    folder.appendingPathComponent(String(key.prefix(2)), isDirectory: true)
      .appendingPathComponent(key + ".f32")
  }

  /// The cached vector of `key`, or `nil`.
  func features(for key: String) -> [Float]? {
    guard let data = try? Data(contentsOf: url(for: key)),
      data.count == Self.magic.count + 4 + 4 * featureCount, data.starts(with: Self.magic)
    else { return nil }
    let bytes = [UInt8](data)
    var offset = Self.magic.count
    let count = Int(Self.readWord(bytes, at: offset))
    guard count == featureCount else { return nil }
    offset += 4
    var values: [Float] = []
    values.reserveCapacity(count)
    for index in 0..<count {
      values.append(Float(bitPattern: Self.readWord(bytes, at: offset + 4 * index)))
    }
    return values.allSatisfy(\.isFinite) ? values : nil
  }

  /// Saves `values` under `key`; a failure to write only costs a later recomputation.
  func store(_ values: [Float], for key: String) {
    guard values.count == featureCount else { return }
    var bytes = Self.magic
    bytes.reserveCapacity(bytes.count + 4 + 4 * values.count)
    Self.appendWord(UInt32(values.count), to: &bytes)
    for value in values { Self.appendWord(value.bitPattern, to: &bytes) }
    let target = url(for: key)
    try? FileManager.default.createDirectory(
      at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? Data(bytes).write(to: target, options: .atomic)
  }

  private static func readWord(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
  }

  private static func appendWord(_ word: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: word >> shift))
    }
  }
}
