public import Foundation

/// The image-format fixtures `Scripts/image-fixtures/generate.sh` writes with Pillow: encoded
/// files, Pillow's decoding of each as a PNG, and `manifest.json` describing them.
public enum FormatFixtures {
  /// One fixture, as `manifest.json` describes it.
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    /// The encoded file, relative to ``root``, such as `webp/lossy-photo.webp`.
    public var file: String
    /// Pillow's decoding as a PNG (RGB or RGBA, the stored pixels before any orientation), or
    /// `nil` for a broken file.
    public var reference: String?
    /// `RGB` or `RGBA`: the channels Pillow decodes.
    public var mode: String?
    /// The stored width.
    public var width: Int?
    /// The stored height.
    public var height: Int?
    /// The orientation still to apply after decoding (1 for none, and for HEIF and AVIF).
    public var orientation: Int?
    /// The EXIF orientation tag the file stores, `nil` for none (HEIF and AVIF fixtures).
    public var exifOrientation: Int?
    /// Whether the encoding is lossless: the pixels must then match exactly.
    public var lossless: Bool?
    /// For a broken file, the ``ImageDecodingError`` code it must give, such as `truncated`,
    /// or `any` when any code will do.
    public var error: String?
    /// Why the reference decoder refused a broken file.
    public var note: String?

    /// The file's name, which test reports show.
    public var description: String { file }

    /// The encoded file.
    public var url: URL { FormatFixtures.root.appendingPathComponent(file) }
    /// The reference PNG, if any.
    public var referenceURL: URL? {
      reference.map { FormatFixtures.root.appendingPathComponent($0) }
    }
  }

  private struct Manifest: Decodable {
    var cases: [Case]
  }

  /// The fixtures' root: `$IMAGE_FIXTURES_DIR`, else the package's `.cache/image-fixtures`.
  public static let root: URL =
    ProcessInfo.processInfo.environment["IMAGE_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) }
    ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/image-fixtures")

  /// The manifest; its absence means the fixtures were not generated.
  public static var manifest: URL { root.appendingPathComponent("manifest.json") }

  /// Whether the fixtures were generated.
  public static var isAvailable: Bool { FileManager.default.fileExists(atPath: manifest.path) }

  /// Why a fixture suite is skipped when ``manifest`` is absent.
  public static var skipReason: String {
    "\(manifest.path) is absent (run Scripts/image-fixtures/generate.sh): skipped"
  }

  /// The cases whose file starts with `prefix` (such as `webp/`); empty when the manifest is
  /// absent or unreadable.
  public static func cases(under prefix: String) -> [Case] {
    guard let data = try? Data(contentsOf: manifest),
      let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
    else { return [] }
    return manifest.cases.filter { $0.file.hasPrefix(prefix) }
  }
}
