/// A container format that ``ImageDecoder`` recognizes from the file's leading bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
  /// Portable Network Graphics.
  case png
  /// JPEG (JFIF or EXIF).
  case jpeg
  /// WebP (lossy, lossless, with alpha or animated), in its RIFF container.
  case webp
  /// HEIF with HEVC images (HEIC, as iPhones save photos), in its ISO base media file container.
  case heif
  /// AVIF: HEIF with AV1 images.
  case avif

  /// The file name extensions photos of these formats are saved with, lowercased, for finding
  /// photos in a folder (a file's content, not its name, decides its format).
  public static let fileExtensions: Set<String> = [
    "png", "jpg", "jpeg", "jpe", "heic", "heif", "hif", "avif", "webp",
  ]

  /// Whether the container carries the image's rotation, mirroring and crop (HEIF and AVIF).
  ///
  /// Decoding applies them, and the EXIF orientation is then descriptive only, as the HEIF
  /// standard says and as pillow-heif, libvips and ImageMagick treat it.
  public var appliesContainerTransforms: Bool { self == .heif || self == .avif }

  /// The major and compatible brands of an `ftyp` box that mark HEIF and AVIF files.
  private static let heifBrands: Set<String> = [
    "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1",
  ]
  private static let avifBrands: Set<String> = ["avif", "avis"]

  /// Recognizes the format from magic bytes, never from a file name.
  ///
  /// - Parameter bytes: The start of the file; twelve bytes are enough.
  /// - Returns: The format, or `nil` when the bytes match no supported format.
  public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
    let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    if bytes.starts(with: pngSignature) { return .png }
    if bytes.starts(with: [0xFF, 0xD8, 0xFF] as [UInt8]) { return .jpeg }
    // RIFF, a 4-byte size, WEBP.
    if bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WEBP".utf8)) {
      return .webp
    }
    return isobmffFormat(Array(bytes.prefix(256)))
  }

  /// HEIF or AVIF from an `ftyp` box.
  ///
  /// The box holds its size, `ftyp`, the major brand, a minor version, then compatible brands.
  /// AVIF when the major brand, or a compatible brand of a generic (`mif1`, `msf1`) file, is
  /// AVIF's.
  private static func isobmffFormat(_ head: [UInt8]) -> ImageFormat? {
    guard head.count >= 12, head[4..<8].elementsEqual(Array("ftyp".utf8)) else { return nil }
    let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
    let brand = { (offset: Int) in String(decoding: head[offset..<(offset + 4)], as: UTF8.self) }
    let major = brand(8)
    var compatible: [String] = []
    var offset = 16
    while offset + 4 <= min(size, head.count) {
      compatible.append(brand(offset))
      offset += 4
    }
    if avifBrands.contains(major) { return .avif }
    let generic = major == "mif1" || major == "msf1"
    if generic, compatible.contains(where: avifBrands.contains) { return .avif }
    if heifBrands.contains(major) { return .heif }
    if compatible.contains(where: { heifBrands.contains($0) && $0 != "mif1" && $0 != "msf1" }) {
      return .heif
    }
    return nil
  }
}
