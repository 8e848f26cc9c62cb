import Foundation
import VisionCatalog

/// `--schema FILE.json`: a catalog schema written by hand.
enum SchemaFile {
  /// Larger files are refused before they are read.
  static let maximumBytes = 1 << 20

  /// Reads the schema at `path`.
  ///
  /// - Throws: A one-line failure for a missing, oversized or malformed file.
  static func read(_ path: String) throws(CLIError) -> CatalogSchema {
    let url = URL(fileURLWithPath: path)
    let size = (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize
    guard let size else { throw CLIError.failure("\(path): no such schema file") }
    guard size <= maximumBytes else {
      throw CLIError.failure("\(path): \(size) bytes; a schema file holds at most 1 MiB")
    }
    do {
      return try JSONDecoder().decode(CatalogSchema.self, from: Data(contentsOf: url))
    } catch let DecodingError.keyNotFound(key, _) {
      throw CLIError.failure("\(path): the schema has no \"\(key.stringValue)\"")
    } catch {
      throw CLIError.failure(
        "\(path): not a catalog schema (a JSON object with \"entitySet\", \"key\" and "
          + "\"category\" strings)")
    }
  }
}
