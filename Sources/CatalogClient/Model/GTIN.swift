/// A GS1 Global Trade Item Number: the number behind EAN-13, EAN-8, UPC-A and ITF-14 barcodes.
///
/// A GTIN has 8, 12, 13 or 14 digits, the last one a check digit. GS1 defines the shorter forms
/// as the 14-digit form with leading zeros dropped, so `4006381333931` (EAN-13) and
/// `04006381333931` are the same number; ``digits`` is always the 14-digit form, and two values
/// are equal when they name the same number.
///
/// ```swift
/// let gtin = GTIN("036000291452")  // UPC-A
/// gtin?.digits  // "00036000291452"
/// GTIN("036000291453")  // nil: wrong check digit
/// ```
public struct GTIN: Sendable, Hashable, CustomStringConvertible {
  /// The 14-digit form, padded with leading zeros, for example `04006381333931`.
  public let digits: String

  /// The lengths a GTIN is written in: GTIN-8, GTIN-12 (UPC-A), GTIN-13 (EAN-13) and GTIN-14.
  private static let lengths: Set<Int> = [8, 12, 13, 14]

  /// Reads a GTIN, checking its check digit; `nil` when the text is not exactly a GTIN.
  ///
  /// Only the bare digits are accepted: any other length, a character that is not an ASCII digit
  /// (a space, a dash, an Arabic-Indic digit) or a wrong check digit gives `nil`, so text that is
  /// not exactly a GTIN never becomes one.
  ///
  /// - Parameter text: Exactly 8, 12, 13 or 14 ASCII digits whose last digit is the GS1 mod-10
  ///   check digit of the others.
  public init?(_ text: some StringProtocol) {
    var values: [UInt8] = []
    values.reserveCapacity(14)
    for byte in text.utf8 {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), values.count < 14 else {
        return nil
      }
      values.append(byte - UInt8(ascii: "0"))
    }
    guard Self.lengths.contains(values.count), let check = values.last,
      Self.checkDigit(values.dropLast()) == check
    else {
      return nil
    }
    digits = String(repeating: "0", count: 14 - values.count) + String(text)
  }

  /// The 14-digit form, ``digits``.
  public var description: String { digits }

  /// The number the digits write, for a catalog that keeps GTINs in a numeric property; at most
  /// 99,999,999,999,999, so it always fits.
  package var number: Int64 {
    digits.utf8.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
  }

  /// The forms a catalog may store this number as, longest first: the 14-digit form and, when
  /// it starts with zeros, the 13-, 12- and 8-digit forms that drop only those zeros.
  ///
  /// `00036000291452` gives `00036000291452`, `0036000291452` and `036000291452`; a number
  /// whose 14-digit form starts with a non-zero digit gives that form only.
  package var storedForms: [String] {
    var forms = [digits]
    for length in [13, 12, 8] {
      let dropped = digits.utf8.prefix(14 - length)
      guard dropped.allSatisfy({ $0 == UInt8(ascii: "0") }) else { break }
      forms.append(String(digits.suffix(length)))
    }
    return forms
  }

  /// The GS1 mod-10 check digit of a number's other digits.
  ///
  /// From the right, the digits are weighted 3, 1, 3, 1, …; the check digit brings the weighted
  /// sum up to a multiple of 10.
  ///
  /// - Parameter body: The digits' values (0 to 9), most significant first, without the check
  ///   digit.
  /// - Returns: The check digit's value, 0 to 9.
  package static func checkDigit(_ body: some Collection<UInt8>) -> UInt8 {
    var sum = 0
    for (position, value) in body.reversed().enumerated() {
      sum += Int(value) * (position.isMultiple(of: 2) ? 3 : 1)
    }
    return UInt8((10 - sum % 10) % 10)
  }
}
