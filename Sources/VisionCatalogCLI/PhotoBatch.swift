import Foundation
import VisionCatalog

/// The photos of a batch command: the files given, and the photos found under folders given,
/// in a stable order, optionally cut to one shard.
struct PhotoBatch {
  /// The photo paths, in order.
  let paths: [String]

  /// Expands `arguments`: a folder gives its photos as `PhotoFolder` finds them (subfolders
  /// and symbolic links followed, hidden entries skipped) sorted by path; a file is kept as
  /// given, and so is a symbolic link to nothing, which then fails as that photo's error line.
  ///
  /// A folder without photos is an error rather than an empty part of the batch, since a
  /// wrong folder would otherwise succeed with no output.
  init(arguments: [String]) throws(CLIError) {
    var paths: [String] = []
    for argument in arguments {
      if Self.isFolder(argument) {
        let found: [URL]
        do {
          found = try PhotoFolder.photos(under: URL(fileURLWithPath: argument, isDirectory: true))
        } catch {
          throw CLIError.failure("\(argument): \(error.message)")
        }
        guard !found.isEmpty else {
          throw CLIError.failure(
            "\(argument): no photos in the folder or its subfolders (photos are found by "
              + "their extension: "
              + ImageFormat.fileExtensions.sorted().map { "." + $0 }.joined(separator: " ")
              + ")")
        }
        paths += found.map(\.path)
      } else if Self.isEntry(argument) {
        paths.append(argument)
      } else {
        throw CLIError.failure("\(argument): no such file or folder")
      }
    }
    guard !paths.isEmpty else { throw CLIError.failure("no photos given") }
    self.paths = paths
  }

  /// Whether `path` names a folder, or a symbolic link to one.
  static func isFolder(_ path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      && isFolder.boolValue
  }

  /// Whether `path` names anything at all, a symbolic link to nothing included (which
  /// `fileExists` follows and denies).
  private static func isEntry(_ path: String) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: path)) != nil
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
