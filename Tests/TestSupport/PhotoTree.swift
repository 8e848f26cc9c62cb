public import Foundation

/// A fresh temporary folder in which a test lays out photos, folders and symbolic links, for the
/// folder walk and the commands built on it.
///
/// Photos are copies of `Samples/coffee.png`, a real photo, unless the test gives other bytes, so
/// one tree serves both the walk and commands that decode what it finds.
public struct PhotoTree: Sendable {
  /// The tree's root folder.
  public let root: URL

  /// The photo every photo of a tree copies by default.
  public static let samplePhoto = CorpusLocator.packageRoot
    .appendingPathComponent("Samples/coffee.png")

  /// Makes an empty tree in the temporary folder.
  ///
  /// - Parameter name: Part of the folder's name, to tell trees apart.
  /// - Throws: When the folder cannot be made.
  public init(_ name: String) throws {
    root = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  /// The URL of `path` in the tree.
  ///
  /// - Parameter path: A path relative to ``root``, such as `album/a.png`.
  /// - Returns: The URL, whether or not anything is there.
  public func url(_ path: String) -> URL {
    root.appendingPathComponent(path)
  }

  /// Makes a folder and the folders it is in.
  ///
  /// - Parameter path: The folder's path in the tree.
  /// - Returns: Its URL.
  /// - Throws: When it cannot be made.
  @discardableResult
  public func folder(_ path: String) throws -> URL {
    let folder = url(path)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Writes a file, making the folders it is in.
  ///
  /// - Parameters:
  ///   - path: The file's path in the tree.
  ///   - bytes: Its contents; the sample photo's by default.
  /// - Returns: Its URL.
  /// - Throws: When the sample photo cannot be read or the file cannot be written.
  @discardableResult
  public func file(_ path: String, bytes: Data? = nil) throws -> URL {
    let file = url(path)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try (bytes ?? Data(contentsOf: Self.samplePhoto)).write(to: file)
    return file
  }

  /// Makes a symbolic link, making the folders it is in.
  ///
  /// - Parameters:
  ///   - path: The link's path in the tree.
  ///   - destination: What the link holds, kept as given: a relative destination is resolved
  ///     from the link's folder, and it need not exist.
  /// - Returns: The link's URL.
  /// - Throws: When the link cannot be made.
  @discardableResult
  public func link(_ path: String, to destination: String) throws -> URL {
    let link = url(path)
    try FileManager.default.createDirectory(
      at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: destination)
    return link
  }

  /// Deletes the tree; links are removed, never what they lead to outside it.
  public func remove() {
    try? FileManager.default.removeItem(at: root)
  }
}
