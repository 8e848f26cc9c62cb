package import Foundation

/// The photos in a folder, found one way for every command that takes folders of photos.
///
/// Batch `classify`, `train` and `evaluate` all walk folders through here, so they agree on what a
/// photo is and none of them loses one without saying so:
///
/// - Symbolic links are followed, to files and to folders, as torchvision's `ImageFolder` and
///   Create ML follow them, since datasets are often folders of links into one photo store.
/// - A link back to a folder the walk is already inside (a cycle) is not entered again, so a walk
///   always ends; a photo reached by two paths without a cycle is listed once per path, as
///   `find -L` lists it.
/// - Entries whose name starts with `.` are skipped.
/// - A photo is an entry whose lowercased extension is in ``ImageFormat/fileExtensions`` and that
///   is a regular file or a symbolic link leading nowhere. A broken link is listed so that the
///   caller reports it as a photo it cannot read instead of dropping it.
/// - Paths are those reached through the links, below the folder as given, never the links'
///   targets, so they name what the user gave.
package enum PhotoFolder {
  /// The deepest a walk goes below the folder it starts from.
  package static let maximumDepth = 64

  /// The photos under `folder`, subfolders included, sorted by path.
  ///
  /// - Parameter folder: The folder, or a symbolic link to one.
  /// - Returns: The photos' paths, below `folder` as given.
  /// - Throws: ``ImageDecodingError`` with code `io` when `folder` or a folder below it cannot be
  ///   listed, or `limitExceeded` when folders nest deeper than ``maximumDepth``.
  package static func photos(under folder: URL) throws(ImageDecodingError) -> [URL] {
    guard case .folder(let identity) = Entry(at: folder.path) else {
      throw ImageDecodingError(.io, "\(folder.path) is not a folder")
    }
    var walk = Walk(ancestors: [identity])
    try walk.collect(in: folder)
    return walk.found.sorted { $0.path < $1.path }
  }

  /// The folders directly in `folder`, symbolic links to folders included and hidden entries
  /// skipped, sorted by name.
  ///
  /// - Parameter folder: The folder, or a symbolic link to one.
  /// - Returns: The subfolders' paths, below `folder` as given.
  /// - Throws: ``ImageDecodingError`` with code `io` when `folder` cannot be listed.
  package static func subfolders(of folder: URL) throws(ImageDecodingError) -> [URL] {
    try visibleNames(in: folder).compactMap { name in
      let path = folder.appendingPathComponent(name, isDirectory: true)
      guard case .folder = Entry(at: path.path) else { return nil }
      return path
    }.sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  /// The names in `folder` that do not start with `.`.
  private static func visibleNames(in folder: URL) throws(ImageDecodingError) -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { !$0.hasPrefix(".") }
    } catch {
      throw ImageDecodingError(
        .io, "cannot list the folder \(folder.path): \(error.localizedDescription)")
    }
  }

  /// One walk's state: the folders it is inside, and the photos found so far.
  private struct Walk {
    var ancestors: Set<FolderIdentity>
    var found: [URL] = []

    mutating func collect(in folder: URL) throws(ImageDecodingError) {
      for name in try visibleNames(in: folder) {
        let path = folder.appendingPathComponent(name, isDirectory: false)
        switch Entry(at: path.path) {
        case .folder(let identity):
          // The same folder further up means a cycle: entering it would never end.
          guard !ancestors.contains(identity) else { continue }
          guard ancestors.count <= maximumDepth else {
            throw ImageDecodingError(
              .limitExceeded, "\(path.path) is more than \(maximumDepth) folders deep")
          }
          ancestors.insert(identity)
          try collect(in: folder.appendingPathComponent(name, isDirectory: true))
          ancestors.remove(identity)
        case .file, .brokenLink:
          if ImageFormat.fileExtensions.contains(path.pathExtension.lowercased()) {
            found.append(path)
          }
        case .other:
          continue
        }
      }
    }
  }

  /// A folder as the file system knows it, whatever path reached it.
  private struct FolderIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  /// What a directory entry is once symbolic links are followed.
  private enum Entry {
    case folder(FolderIdentity)
    case file
    /// A symbolic link whose target is missing, unreachable or itself a loop of links.
    case brokenLink
    /// A device, socket or pipe: never a photo, and reading a pipe could block.
    case other

    /// The most symbolic links followed from one entry: Linux's `MAXSYMLINKS`, past which `stat`
    /// gives up with `ELOOP`.
    static let linkLimit = 40

    /// Reads the entry at `path`, following its links one at a time as `stat` does.
    ///
    /// `attributesOfItem` reads an entry without following it, and `destinationOfSymbolicLink`
    /// reads a link's target. A relative target is appended to the path of the link's folder as
    /// reached, never tidied, so the file system resolves its `..` through the folders actually
    /// reached, as `stat` would; a folder's identity is that of the final target.
    init(at path: String) {
      let files = FileManager.default
      var reached = path
      var followedLink = false
      for _ in 0...Self.linkLimit {
        guard let attributes = try? files.attributesOfItem(atPath: reached) else {
          // Nothing at the end of links: a link to a missing or unreachable target. Nothing at
          // `path` itself: gone since the folder was listed, nothing left to report.
          self = followedLink ? .brokenLink : .other
          return
        }
        switch attributes[.type] as? FileAttributeType {
        case .typeSymbolicLink?:
          guard let target = try? files.destinationOfSymbolicLink(atPath: reached) else {
            self = .brokenLink
            return
          }
          if target.hasPrefix("/") {
            reached = target
          } else {
            let folder = reached.lastIndex(of: "/").map { reached[...$0] } ?? ""
            reached = folder + target
          }
          followedLink = true
        case .typeDirectory?:
          guard let device = attributes[.systemNumber] as? NSNumber,
            let inode = attributes[.systemFileNumber] as? NSNumber
          else {
            self = .other
            return
          }
          self = .folder(FolderIdentity(device: device.uint64Value, inode: inode.uint64Value))
          return
        case .typeRegular?:
          self = .file
          return
        default:
          self = .other
          return
        }
      }
      // More links than `stat` follows: a loop of links, or a chain as good as one.
      self = .brokenLink
    }
  }
}
