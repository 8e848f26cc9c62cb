public import Foundation

/// Barcode photos with the codes really in them, and what zxing-cpp's Python binding read from
/// them: the committed sample photos (`Tests/BarcodesTests/Photos`, real photos from zxing-cpp's
/// and ZXing's test samples) and the generated set (`Scripts/barcode-fixtures/generate.sh`,
/// under `.cache/barcode-fixtures`).
public enum BarcodeFixtures {
  /// One code in a photo: its symbology as zxing-cpp names it, its text, and its GTIN-14.
  public struct Code: Decodable, Sendable, Hashable {
    /// The symbology, such as `EAN-13`.
    public var format: String
    /// The text.
    public var text: String
    /// The 14-digit GTIN, or `nil`.
    public var gtin: String?

    /// Creates a code.
    ///
    /// - Parameters:
    ///   - format: The symbology.
    ///   - text: The text.
    ///   - gtin: The 14-digit GTIN, or `nil`.
    public init(format: String, text: String, gtin: String?) {
      self.format = format
      self.text = text
      self.gtin = gtin
    }
  }

  /// The committed sample photos.
  public static let samples = CorpusLocator.packageRoot.appendingPathComponent(
    "Tests/BarcodesTests/Photos")

  /// The generated photos: `$BARCODE_FIXTURES_DIR`, else the package's
  /// `.cache/barcode-fixtures`.
  public static let generated: URL =
    ProcessInfo.processInfo.environment["BARCODE_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) }
    ?? CorpusLocator.packageRoot.appendingPathComponent(".cache/barcode-fixtures")

  /// Whether the generated set and the binding's results on it are there.
  public static var isGenerated: Bool {
    FileManager.default.fileExists(atPath: generated.appendingPathComponent("expected.json").path)
      && FileManager.default.fileExists(
        atPath: generated.appendingPathComponent("reference.json").path)
  }

  /// Why the generated cases are skipped.
  public static let skipReason =
    "the generated barcode photos are absent: run Scripts/setup --test-tools (or "
    + "Scripts/barcode-fixtures/generate.sh)"

  /// The codes in each photo of a folder, by file name, from a JSON file of that shape.
  ///
  /// - Parameter url: `expected.json` (the truth) or `reference.json` (the binding's reading).
  /// - Returns: The codes by file name.
  /// - Throws: When the file cannot be read or parsed.
  public static func codes(in url: URL) throws -> [String: [Code]] {
    let data = try Data(contentsOf: url)
    if let plain = try? JSONDecoder().decode([String: [Code]].self, from: data) { return plain }
    return try JSONDecoder().decode(Reference.self, from: data).files.mapValues(\.codes)
  }

  /// `reference.json`'s shape when it carries timings beside the codes.
  private struct Reference: Decodable {
    struct File: Decodable {
      var codes: [Code]
      private enum CodingKeys: String, CodingKey { case codes = "barcodes" }
    }
    var files: [String: File]
  }
}
