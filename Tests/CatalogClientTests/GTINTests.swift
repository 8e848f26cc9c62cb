import CatalogClient
import Testing

/// GS1 GTINs: which texts are numbers a barcode can carry, their 14-digit form and the forms a
/// catalog may store them in.
struct GTINTests {
  /// Real products' numbers: an EAN-13 (a STABILO pen), a UPC-A (a Kraft product), an EAN-8,
  /// GS1's GTIN-14 example and the bundled catalog's first in-store number.
  static let valid: [(String, String)] = [
    ("4006381333931", "04006381333931"), ("036000291452", "00036000291452"),
    ("96385074", "00000096385074"), ("10012345678902", "10012345678902"),
    ("2012345010000", "02012345010000"), ("00000096385074", "00000096385074"),
  ]

  @Test(arguments: valid)
  func validNumbersHaveTheir14DigitForm(_ text: String, _ digits: String) throws {
    let gtin = try #require(GTIN(text))
    #expect(gtin.digits == digits)
    #expect(gtin.description == digits)
    #expect("\(gtin)" == digits)
    #expect(GTIN(digits) == gtin)
  }

  @Test(arguments: [
    "4006381333932", "4006381333930", "036000291453", "96385075", "10012345678903",
    "4006381333931 ", " 4006381333931", "4006381333931\n", "4006 381333931", "4006-381333931",
    "400638133393A", "A006381333931", "+4006381333931", "-4006381333931", "4.006381333931",
    "", "0", "1234567", "012345670", "0036000291452X", "40063813339", "040063813339310",
    "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "\u{FF14}\u{FF10}\u{FF10}\u{FF16}\u{FF13}\u{FF18}\u{FF11}\u{FF13}\u{FF13}\u{FF13}\u{FF19}"
      + "\u{FF13}\u{FF11}",
    "\u{0664}006381333931",
  ])
  func anythingElseIsNotAGTIN(_ text: String) {
    #expect(GTIN(text) == nil, "\(text.debugDescription)")
  }

  @Test func lengthsOtherThan8_12_13_14AreRefusedEvenWithAGoodCheckDigit() throws {
    // 1234567 has the check digit 0, and leading zeros keep it right at every length.
    for length in 8...16 {
      let text = String(repeating: "0", count: length - 8) + "12345670"
      let expected = [8, 12, 13, 14].contains(length)
      #expect((GTIN(text) != nil) == expected, "\(length) digits")
    }
  }

  @Test func everySingleDigitErrorIsCaught() throws {
    for text in Self.valid.map(\.0) {
      for position in text.indices {
        for digit in "0123456789" where digit != text[position] {
          var changed = text
          changed.replaceSubrange(position...position, with: String(digit))
          #expect(GTIN(changed) == nil, "\(changed)")
        }
      }
    }
  }

  @Test func exactlyOneCheckDigitFitsEachNumber() {
    for body in ["400638133393", "03600029145", "9638507", "1001234567890", "201234501000"] {
      let fitting = (0...9).filter { GTIN(body + String($0)) != nil }
      #expect(fitting.count == 1, "\(body)")
      let values = body.utf8.map { $0 - UInt8(ascii: "0") }
      #expect(fitting.map(UInt8.init) == [GTIN.checkDigit(values)], "\(body)")
    }
  }

  @Test func theNumberIsTheDigitsValue() throws {
    #expect(try #require(GTIN("036000291452")).number == 36_000_291_452)
    #expect(try #require(GTIN("99999999999997")).number == 99_999_999_999_997)
  }

  @Test func substringsAreRead() throws {
    let text = "EAN 4006381333931"
    let gtin = try #require(GTIN(text.dropFirst(4)))
    #expect(gtin == GTIN("4006381333931"))
  }

  @Test func theSameNumberIsEqualInEveryForm() throws {
    let forms = ["036000291452", "0036000291452", "00036000291452"]
    #expect(Set(forms.compactMap(GTIN.init)).count == 1)
    #expect(GTIN("4006381333931") != GTIN("036000291452"))
  }

  @Test(arguments: [
    ("4006381333931", ["04006381333931", "4006381333931"]),
    ("036000291452", ["00036000291452", "0036000291452", "036000291452"]),
    ("96385074", ["00000096385074", "0000096385074", "000096385074", "96385074"]),
    ("10012345678902", ["10012345678902"]),
    // Five leading zeros: 13 and 12 digits drop only zeros, 8 digits would drop a 1.
    ("00000123456784", ["00000123456784", "0000123456784", "000123456784"]),
  ])
  func storedFormsDropOnlyLeadingZeros(_ text: String, _ forms: [String]) throws {
    let gtin = try #require(GTIN(text))
    #expect(gtin.storedForms == forms)
    for form in gtin.storedForms {
      #expect(GTIN(form) == gtin, "\(form)")
    }
  }
}
