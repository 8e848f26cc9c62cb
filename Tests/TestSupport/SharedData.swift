public import Foundation

/// Locates the read-only shared corpora (`../shared` next to the package root) from this file's
/// path, never from the working directory.
public enum SharedData {
  /// The `shared` directory beside the package root, or `nil` when it does not exist.
  public static let root: URL? = {
    let shared = CorpusLocator.packageRoot.deletingLastPathComponent()
      .appendingPathComponent("shared")
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: shared.path, isDirectory: &isDirectory)
    return exists && isDirectory.boolValue ? shared : nil
  }()

  /// The URL of a file or directory under the shared root, or `nil` when it is absent.
  ///
  /// - Parameter relativePath: A path such as `models/ref/manifest.json`.
  /// - Returns: The URL when the item exists.
  public static func url(_ relativePath: String) -> URL? {
    guard let url = root?.appendingPathComponent(relativePath) else { return nil }
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }
}
