public import Foundation

/// Finds the shared, read-only test corpora (`testdata` under ``SharedData/expectedRoot``,
/// normally `../shared/testdata` next to the package root).
///
/// The location comes from this file's own path at compile time, never from the working
/// directory, so tests find the corpora however they are launched; `VISION_CATALOG_SHARED_ROOT`
/// moves it as it moves ``SharedData``.
public enum CorpusLocator {
  /// The package root: this file lives in `Tests/TestSupport/`.
  public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The corpora folder, whether or not it exists.
  public static let testdata: URL = SharedData.expectedRoot.appendingPathComponent(
    "testdata", isDirectory: true)

  /// Whether the corpora folder is present.
  public static var isAvailable: Bool { SharedData.isDirectory(testdata) }

  /// Why corpus tests are skipped, for `.enabled(if:_:)`.
  public static var skipReason: String { SharedData.skipReason(for: "testdata") }

  /// The URL of a file or folder inside the corpora.
  ///
  /// - Parameter relativePath: A path such as `pngsuite/basn0g01.png`.
  /// - Returns: The absolute URL.
  public static func url(_ relativePath: String) -> URL {
    testdata.appendingPathComponent(relativePath)
  }

  /// The regular files of a corpus folder, sorted by path.
  ///
  /// - Parameters:
  ///   - relativePath: A folder inside the corpora.
  ///   - recursive: Whether to include files in subfolders.
  ///   - extensions: Lowercased file extensions to keep; empty keeps every file.
  /// - Returns: The files' URLs; empty when the folder is missing.
  public static func files(
    in relativePath: String, recursive: Bool = false, extensions: Set<String> = []
  ) -> [URL] {
    let folder = url(relativePath)
    let manager = FileManager.default
    var found: [URL] = []
    if recursive {
      guard let enumerator = manager.enumerator(at: folder, includingPropertiesForKeys: nil)
      else { return [] }
      for case let file as URL in enumerator { found.append(file) }
    } else {
      found = (try? manager.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    }
    return
      found
      .filter { file in
        var isDirectory: ObjCBool = false
        return manager.fileExists(atPath: file.path, isDirectory: &isDirectory)
          && !isDirectory.boolValue
      }
      .filter { extensions.isEmpty || extensions.contains($0.pathExtension.lowercased()) }
      .sorted { $0.path < $1.path }
  }
}
