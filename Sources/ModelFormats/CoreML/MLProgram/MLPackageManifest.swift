import NeuralCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// An ML package's `Manifest.json`: its items (model, weights) by identifier and which one is
/// the root model.
///
/// ```json
/// {"fileFormatVersion": "1.0.0",
///  "itemInfoEntries": {"6771…": {"author": "com.apple.CoreML", "name": "model.mlmodel",
///                                "path": "com.apple.CoreML/model.mlmodel"}, …},
///  "rootModelIdentifier": "6771…"}
/// ```
/// Item paths are relative to the package's `Data` folder.
struct MLPackageManifest: Decodable {
  /// One item of the package.
  struct Item: Decodable {
    /// The item's path under `Data/`.
    var path: String
    /// The item's file name.
    var name: String?
    /// Who wrote it (`com.apple.CoreML`).
    var author: String?
  }

  /// The manifest format's version (`1.0.0`).
  var fileFormatVersion: String
  /// The items by identifier.
  var itemInfoEntries: [String: Item]
  /// The identifier of the root model item.
  var rootModelIdentifier: String

  /// The largest manifest read: real ones are under 1 KiB.
  static let maximumBytes = 1 << 20

  /// Decodes a manifest.
  ///
  /// - Parameter bytes: The JSON text.
  /// - Returns: The manifest.
  /// - Throws: `malformedFile` for JSON that is not a manifest, `unsupported` for a format
  ///   version other than 1.x.
  static func decode(_ bytes: [UInt8]) throws(ModelFormatsError) -> MLPackageManifest {
    let manifest: MLPackageManifest
    do {
      manifest = try JSONDecoder().decode(MLPackageManifest.self, from: Data(bytes))
    } catch {
      throw ModelFormatsError(
        .malformedFile, "ML package: Manifest.json is not a manifest: \(error)")
    }
    guard manifest.fileFormatVersion.split(separator: ".").first == "1" else {
      throw ModelFormatsError(
        .unsupported,
        "ML package: Manifest.json has format version '\(manifest.fileFormatVersion)', not 1.x")
    }
    return manifest
  }

  /// The root model item.
  ///
  /// - Throws: `malformedFile` when the root identifier names no item.
  func rootModel() throws(ModelFormatsError) -> Item {
    guard let item = itemInfoEntries[rootModelIdentifier] else {
      throw ModelFormatsError(
        .malformedFile,
        "ML package: Manifest.json's root model '\(rootModelIdentifier)' is not one of its items")
    }
    return item
  }
}
