import Foundation
import TestSupport
import Testing

/// Locates the read-only reference models (`models` under ``SharedData``'s root, normally
/// `../shared/models`) and the fixtures `Scripts/setup --test-tools` writes into the package's
/// `.cache`, relative to the package so the working directory does not matter.
enum SharedModels {
  /// The package root.
  static let packageRoot: URL = CorpusLocator.packageRoot

  /// The path of a file under the shared `models` folder, or `nil` when it is absent.
  ///
  /// - Parameter relative: A path such as `onnx/efficientnet-lite0.onnx`.
  /// - Returns: The absolute path, or `nil`.
  static func path(_ relative: String) -> String? {
    SharedData.url("models/" + relative)?.path
  }

  /// The path of a shared model file that the test's trait found, or an issue if it vanished.
  ///
  /// - Parameter relative: A path such as `onnx/efficientnet-lite0.onnx`.
  /// - Returns: The absolute path.
  /// - Throws: The `#require` failure when the file is absent.
  static func requiredPath(_ relative: String) throws -> String {
    try #require(path(relative), "models/\(relative) is absent although the test was enabled")
  }

  /// A file `Scripts/setup --test-tools` writes under the package's `.cache`.
  ///
  /// - Parameter relative: A path such as `checkpoint-fixtures/expected.json`.
  /// - Returns: The file's URL, whether or not it exists.
  static func cacheURL(_ relative: String) -> URL {
    packageRoot.appendingPathComponent(".cache").appendingPathComponent(relative)
  }

  /// The default model's checkpoint as Scripts/fetch-default-model.sh stores it.
  static let lite0Checkpoint = cacheURL("models/efficientnet-lite0-57934424.pth")
}

extension Trait where Self == ConditionTrait {
  /// Skips the test, saying why, unless every named file is in the shared `models` folder.
  ///
  /// - Parameter relatives: Paths such as `onnx/efficientnet-lite0.onnx`.
  /// - Returns: The condition trait.
  static func requiresSharedModels(_ relatives: String...) -> Self {
    let missing = relatives.first { SharedModels.path($0) == nil }
    return .enabled(
      if: missing == nil,
      Comment(rawValue: SharedData.skipReason(for: "models/\(missing ?? "")")))
  }

  /// Skips the test, saying why, unless a generated fixture exists.
  ///
  /// - Parameters:
  ///   - url: The fixture.
  ///   - maker: The command that writes it.
  /// - Returns: The condition trait.
  static func requiresGeneratedFixture(_ url: URL, madeBy maker: String) -> Self {
    .enabled(
      if: FileManager.default.fileExists(atPath: url.path),
      Comment(rawValue: "\(url.path) is absent (run \(maker)): skipped"))
  }
}
