import Foundation
import VisionCatalog

/// `find --mapping FILE.json`: a JSON object from the model's labels to catalog categories.
enum MappingFile {
  /// Larger files are refused before they are read.
  static let maximumBytes = 16 << 20

  /// Reads the mapping at `path` for a model with `labels`.
  ///
  /// - Throws: A one-line failure for a missing, oversized or malformed file, a value that is
  ///   not a string, or a mapping that names none of the model's labels.
  static func read(_ path: String, labels: [String]) throws(CLIError) -> CategoryMapping {
    let url = URL(fileURLWithPath: path)
    let size = (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize
    guard let size else { throw CLIError.failure("\(path): no such mapping file") }
    guard size <= maximumBytes else {
      throw CLIError.failure("\(path): \(size) bytes; a mapping file holds at most 16 MiB")
    }
    let table: [String: String]
    do {
      table = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
    } catch {
      throw CLIError.failure(
        "\(path): not a JSON object of label to category name strings")
    }
    let known = Set(labels)
    guard table.keys.contains(where: known.contains) else {
      throw CLIError.failure(
        "\(path): none of its \(table.count) labels is a label of the model")
    }
    return CategoryMapping(table)
  }
}
