import CatalogClient
import Foundation

/// The GTIN a symbol's text carries, by symbology.
///
/// The number of an EAN or UPC, an ITF-14, GS1 data's application identifier 01, or a GS1
/// Digital Link URL's `/01/` segment. Every GTIN is checked by `GTIN`'s check digit, so a
/// damaged or faked code gives none.
enum BarcodeContent {
  /// The GS1 symbology identifiers (ISO/IEC 15424): GS1-128, DataBar, GS1 Data Matrix, GS1 QR.
  private static let gs1Identifiers: Set<String> = ["]C1", "]e0", "]d2", "]Q3"]

  /// The GTIN in a symbol's text, if it carries one.
  ///
  /// - Parameters:
  ///   - text: The decoded text.
  ///   - symbology: The symbology.
  ///   - identifier: The symbology identifier, such as `]C1`.
  /// - Returns: The GTIN, or `nil` when the text carries none with a valid check digit.
  static func gtin(in text: String, symbology: BarcodeSymbology, identifier: String) -> GTIN? {
    switch symbology {
    case .ean13, .ean8, .upcA:
      return GTIN(text)
    case .upcE:
      return expandedUPCE(text).flatMap { GTIN($0) }
    case .itf:
      return text.count == 14 ? GTIN(text) : nil
    case .dataBar:
      return gs1GTIN(text) ?? (text.count == 14 ? GTIN(text) : nil)
    case .code128, .dataBarExpanded, .dataMatrix, .qrCode:
      if text.hasPrefix("(01)") || gs1Identifiers.contains(identifier) {
        return gs1GTIN(text)
      }
      return symbology == .qrCode || symbology == .dataMatrix ? digitalLinkGTIN(text) : nil
    }
  }

  /// Application identifier 01 at the start of GS1 data, written `(01)…` or `01…`.
  private static func gs1GTIN(_ text: String) -> GTIN? {
    let digits: Substring
    if text.hasPrefix("(01)") {
      digits = text.dropFirst(4)
    } else if text.hasPrefix("01") {
      digits = text.dropFirst(2)
    } else {
      return nil
    }
    let number = digits.prefix(14)
    return number.count == 14 ? GTIN(number) : nil
  }

  /// The GTIN of a GS1 Digital Link URL: the path segment after `01` (or its old alias `gtin`).
  private static func digitalLinkGTIN(_ text: String) -> GTIN? {
    guard text.count <= 4096, let url = URL(string: text),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { return nil }
    let segments = url.path.split(separator: "/")
    for (index, segment) in segments.enumerated().dropLast()
    where segment == "01" || segment == "gtin" {
      return GTIN(segments[index + 1])
    }
    return nil
  }

  /// The UPC-A number a UPC-E symbol stands for (number system, six digits, check digit), by
  /// the zero-suppression rules of its sixth digit.
  static func expandedUPCE(_ text: String) -> String? {
    let digits = Array(text.utf8)
    guard digits.count == 8, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
      digits[0] == 0x30 || digits[0] == 0x31
    else { return nil }
    let d = digits.map { Character(UnicodeScalar($0)) }
    let body: [Character]
    switch d[6] {
    case "0", "1", "2": body = [d[1], d[2], d[6], "0", "0", "0", "0", d[3], d[4], d[5]]
    case "3": body = [d[1], d[2], d[3], "0", "0", "0", "0", "0", d[4], d[5]]
    case "4": body = [d[1], d[2], d[3], d[4], "0", "0", "0", "0", "0", d[5]]
    default: body = [d[1], d[2], d[3], d[4], d[5], "0", "0", "0", "0", d[6]]
    }
    return String([d[0]] + body + [d[7]])
  }
}
