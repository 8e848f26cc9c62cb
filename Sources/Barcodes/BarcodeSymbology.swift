/// A kind of barcode the reader finds, named as zxing-cpp names it.
///
/// The linear product codes (EAN, UPC, ITF-14, GS1-128, GS1 DataBar) and the two matrix codes that
/// carry GS1 data on packaging (QR Code, with GS1 Digital Link URLs, and Data Matrix); Vision's
/// `VNBarcodeSymbology` has the same members.
public enum BarcodeSymbology: String, Sendable, Hashable, CaseIterable, Codable {
  /// EAN-13 (GTIN-13).
  case ean13 = "EAN-13"
  /// EAN-8 (GTIN-8).
  case ean8 = "EAN-8"
  /// UPC-A (GTIN-12).
  case upcA = "UPC-A"
  /// UPC-E, the zero-suppressed UPC-A.
  case upcE = "UPC-E"
  /// Code 128, and GS1-128 when it starts with FNC1.
  case code128 = "Code128"
  /// Interleaved 2 of 5; ITF-14 when it holds 14 digits.
  case itf = "ITF"
  /// GS1 DataBar (omnidirectional), which always holds a GTIN.
  case dataBar = "DataBar"
  /// GS1 DataBar Expanded.
  case dataBarExpanded = "DataBarExpanded"
  /// QR Code.
  case qrCode = "QRCode"
  /// Data Matrix.
  case dataMatrix = "DataMatrix"
}
