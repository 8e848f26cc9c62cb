public import Foundation

/// The decoding corpus `Scripts/image-fixtures/decoding-corpus.sh` writes (run by
/// `Scripts/setup --test-tools`): PNG and JPEG files made from seeded numbers and the sample
/// photo, each with another decoder's pixels as a `.npy` array, photos stored in every EXIF
/// orientation, and damaged copies with the outcome each must have.
///
/// The decoding suites run it on every machine, and ../shared's third-party corpora beside it
/// when they are present.
public enum DecodingCorpus {
  /// A PNG with pypng's decoding of it.
  public struct PNGCase: Decodable, Sendable, CustomStringConvertible {
    /// The file, relative to ``root``, such as `png/ct0-2bit-adam7.png`.
    public var file: String
    /// pypng's decoding: `[height, width, 4]` RGBA, `uint8` or, for 16-bit files, `uint16`
    /// holding the file's samples.
    public var reference: String
    /// The width.
    public var width: Int
    /// The height.
    public var height: Int
    /// The PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
    public var colorType: Int
    /// Bits per sample (per index for palette images).
    public var bitDepth: Int
    /// Bits per sample of the reference: 16 for 16-bit files, else 8.
    public var referenceBitDepth: Int
    /// Whether the file is Adam7-interlaced.
    public var interlaced: Bool
    /// Whether the file has a tRNS chunk.
    public var transparency: Bool
    /// The row filters: `none`, `sub`, `up`, `average`, `paeth`, `cycle` or `adaptive`.
    public var filters: String
    /// The zlib compression level, 0-9.
    public var zlibLevel: Int

    /// The file's path, which test reports show.
    public var description: String { file }
  }

  /// A JPEG with Pillow's decoding of it.
  public struct JPEGCase: Decodable, Sendable, CustomStringConvertible {
    /// The file, relative to ``root``, such as `jpeg/ycc420-progressive.jpg`.
    public var file: String
    /// Pillow's decoding as RGB, `uint8 [height, width, 3]`.
    public var reference: String
    /// The width.
    public var width: Int
    /// The height.
    public var height: Int
    /// Colour components in the file: 1 (grey), 3 or 4 (CMYK).
    public var components: Int
    /// Whether the file is progressive.
    public var progressive: Bool
    /// The chroma subsampling, such as `4:2:0`.
    public var subsampling: String
    /// For an arithmetic-coded file, the Huffman-coded file holding the same coefficients.
    public var huffmanCoded: String?
    /// For a CMYK file, the YCbCr file of the same photo.
    public var sameSceneAs: String?

    /// The file's path, which test reports show.
    public var description: String { file }
  }

  /// A photo stored so that its EXIF orientation turns it upright, or with an EXIF block that is
  /// broken and must be ignored.
  public struct OrientationCase: Decodable, Sendable, CustomStringConvertible {
    /// The file, relative to ``root``, such as `orientation/png-orientation-6.png`.
    public var file: String
    /// Pillow's decoding turned upright by the orientation Pillow reads, RGB
    /// `uint8 [height, width, 3]`; for a broken block, the stored pixels.
    public var reference: String
    /// The Orientation value the file stores, `nil` for none.
    public var exifOrientation: Int?
    /// The orientation a reader must report, 1-8 (1 for an invalid value or none).
    public var orientation: Int
    /// The upright width.
    public var width: Int
    /// The upright height.
    public var height: Int
    /// Whether the file is lossless (PNG): the upright pixels must then match exactly.
    public var lossless: Bool
    /// For a broken EXIF block, what is broken.
    public var broken: String?

    /// The file's path, which test reports show.
    public var description: String { file }
  }

  /// A damaged copy of a valid file and the outcome it must have.
  public struct MalformedCase: Decodable, Sendable, CustomStringConvertible {
    /// The file, relative to ``root``, such as `malformed/bad-crc-idat.png`.
    public var file: String
    /// The valid file it was made from.
    public var source: String
    /// What was done to it.
    public var damage: String
    /// The `ImageDecodingError` code it must give, such as `truncated`, or `decodes` for damage
    /// a reader must tolerate.
    public var expect: String
    /// For a file that decodes, the pixels it must still give (its source's reference).
    public var reference: String?
    /// Words the error message must hold, such as `lossless`.
    public var message: String?
    /// Whether a decoder that accepts truncated JPEGs gives an image.
    public var decodesWhenLenient: Bool?

    /// Whether the damage must be tolerated.
    public var decodes: Bool { expect == "decodes" }
    /// The file's path, which test reports show.
    public var description: String { file }
  }

  private struct Manifest: Decodable {
    var png: [PNGCase]
    var jpeg: [JPEGCase]
    var orientation: [OrientationCase]
    var malformed: [MalformedCase]
  }

  /// The corpus's root: `$DECODING_CORPUS_DIR`, else the package's `.cache/decoding-corpus`.
  public static let root: URL =
    ProcessInfo.processInfo.environment["DECODING_CORPUS_DIR"].map {
      URL(fileURLWithPath: $0, isDirectory: true)
    } ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/decoding-corpus")

  /// The manifest; its absence means the corpus was not generated.
  public static var manifestURL: URL { root.appendingPathComponent("manifest.json") }

  /// Whether the corpus was generated.
  public static var isAvailable: Bool { manifest != nil }

  /// Why a decoding suite is skipped when the corpus is absent, naming the command that makes
  /// it; for `.enabled(if:_:)`.
  public static var skipReason: String {
    "\(manifestURL.path) is absent or unreadable (run Scripts/setup --test-tools, or just "
      + "Scripts/image-fixtures/decoding-corpus.sh): skipped"
  }

  private static let manifest: Manifest? = {
    guard let data = try? Data(contentsOf: manifestURL) else { return nil }
    return try? JSONDecoder().decode(Manifest.self, from: data)
  }()

  /// The PNGs with pypng's decodings; empty when the corpus is absent.
  public static var png: [PNGCase] { manifest?.png ?? [] }
  /// The JPEGs with Pillow's decodings; empty when the corpus is absent.
  public static var jpeg: [JPEGCase] { manifest?.jpeg ?? [] }
  /// The photos stored with an EXIF orientation or a broken EXIF block; empty when the corpus
  /// is absent.
  public static var orientation: [OrientationCase] { manifest?.orientation ?? [] }
  /// The damaged files; empty when the corpus is absent.
  public static var malformed: [MalformedCase] { manifest?.malformed ?? [] }

  /// The URL of a file of the corpus.
  ///
  /// - Parameter relativePath: A path from the manifest, such as `png/ct2-8bit-plain.png`.
  /// - Returns: The absolute URL.
  public static func url(_ relativePath: String) -> URL {
    root.appendingPathComponent(relativePath)
  }

  /// Every file of a corpus folder with one of the extensions, sorted by path.
  ///
  /// - Parameters:
  ///   - folder: `png`, `jpeg`, `orientation` or `malformed`.
  ///   - extensions: Lowercased file extensions to keep.
  /// - Returns: The files' URLs; empty when the folder is missing.
  public static func files(in folder: String, extensions: Set<String>) -> [URL] {
    let contents =
      (try? FileManager.default.contentsOfDirectory(
        at: root.appendingPathComponent(folder, isDirectory: true),
        includingPropertiesForKeys: nil)) ?? []
    return contents.filter { extensions.contains($0.pathExtension.lowercased()) }
      .sorted { $0.path < $1.path }
  }
}
