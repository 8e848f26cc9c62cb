public import CatalogClient
public import ImagePipeline

/// One barcode read from a photo.
public struct Barcode: Sendable, Hashable {
  /// The symbology.
  public var symbology: BarcodeSymbology
  /// The decoded text, as the symbol carries it (GS1 data with its group separators).
  public var text: String
  /// The product's GTIN when the symbol carries one with a valid check digit: an EAN or UPC, an
  /// ITF-14, GS1 data with application identifier 01, or a GS1 Digital Link URL; `nil` otherwise.
  public var gtin: GTIN?
  /// Where the symbol is in the upright photo (orientation applied), in pixels.
  public var box: PixelRect

  /// Creates a barcode.
  ///
  /// - Parameters:
  ///   - symbology: The symbology.
  ///   - text: The decoded text.
  ///   - gtin: The GTIN it carries, if any.
  ///   - box: Where it is in the upright photo.
  public init(symbology: BarcodeSymbology, text: String, gtin: GTIN?, box: PixelRect) {
    self.symbology = symbology
    self.text = text
    self.gtin = gtin
    self.box = box
  }
}
