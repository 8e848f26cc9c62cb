import Foundation
import VisionCatalog

/// The photos of a batch command: the files given, and the photos found under folders given,
/// in a stable order, optionally cut to one shard.
struct PhotoBatch {
  /// The photo paths, in order.
  let paths: [String]

  /// Expands `arguments`: a folder gives its photos (subfolders included, hidden entries
  /// skipped) sorted by path; a file is kept as given.
  init(arguments: [String]) throws(CLIError) {
    var paths: [String] = []
    for argument in arguments {
      guard FileManager.default.fileExists(atPath: argument) else {
        throw CLIError.failure("\(argument): no such file or folder")
      }
      paths += Self.isFolder(argument) ? try Self.photos(under: argument) : [argument]
    }
    self.paths = paths
  }

  /// Whether `path` names a folder.
  static func isFolder(_ path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      && isFolder.boolValue
  }

  private static func photos(under folder: String) throws(CLIError) -> [String] {
    let root = URL(fileURLWithPath: folder)
    guard
      let walker = FileManager.default.enumerator(
        at: root, includingPropertiesForKeys: [.isRegularFileKey],
        options: [.skipsHiddenFiles])
    else {
      throw CLIError.failure("\(folder): cannot list the folder")
    }
    var found: [String] = []
    for case let url as URL in walker {
      guard ImageFormat.fileExtensions.contains(url.pathExtension.lowercased()),
        (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
      else { continue }
      found.append(url.path)
    }
    return found.sorted()
  }
}

/// The `--shard i/n` option: the i-th of n contiguous, near-equal parts of a list.
///
/// Counted from 1, as GNU `split -n l/i/n` counts, so n processes given 1/n ... n/n together
/// cover every item once.
struct Shard: Equatable {
  /// Which part, 1...count.
  let index: Int
  /// How many parts.
  let count: Int

  /// Parses `i/n` with 1 <= i <= n.
  init(parsing text: String) throws(CLIError) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
      (1...count).contains(index)
    else {
      throw CLIError.usage("--shard must be i/n with 1 <= i <= n, not '\(text)'")
    }
    self.index = index
    self.count = count
  }

  /// This shard's part of `items`: items `(i-1)*N/n ..< i*N/n`.
  func part<Item>(of items: [Item]) -> ArraySlice<Item> {
    let start = (index - 1) * items.count / count
    let end = index * items.count / count
    return items[start..<end]
  }
}
