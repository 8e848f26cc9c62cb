import Foundation
import TestSupport

/// Locates the read-only reference corpus (`../shared/models`) and the worktree's `.cache`,
/// relative to this source file so the working directory does not matter.
enum SharedModels {
  /// The package root.
  static let packageRoot: URL = CorpusLocator.packageRoot

  /// The path of a file under `../shared/models`, or `nil` (with a printed reason) when absent.
  static func path(_ relative: String) -> String? {
    let url = packageRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/models").appendingPathComponent(relative)
    guard FileManager.default.fileExists(atPath: url.path) else {
      print("skipping: \(url.path) is absent (the shared reference corpus is not checked out)")
      return nil
    }
    return url.path
  }
}
