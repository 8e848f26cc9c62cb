import CatalogClient
import Foundation
import Testing

/// Findings of the QueryRoundTrip fuzz harness (Fuzz/Regressions/QueryRoundTrip), pinned.
struct FuzzRegressionTests {
  /// The scalars of a text, so grapheme clustering cannot hide a quote.
  static func scalars(_ text: String) -> [Unicode.Scalar] {
    Array(text.unicodeScalars)
  }

  @Test(arguments: [ODataVersion.v2, .v4])
  func quoteJoinedToACombiningMarkIsDoubled(version: ODataVersion) {
    // U+0654 after the quote makes "'\u{0654}" one Character; the quote must still be doubled.
    let literal = ODataValue.string("O'\u{0654}I").literal(for: version)
    #expect(Self.scalars(literal) == Self.scalars("'O''\u{0654}I'"))
  }

  @Test func combiningMarkCannotEndAStringLiteralInAFilter() throws {
    let hostile = "Mice'\u{0301} or CategoryName ne '"
    let query = ODataQuery(entitySet: Product.entitySet)
      .filter(ODataProperty<String>(ODataPath("CategoryName")) == hostile)
    let filter = try #require(try query.queryOptions(version: .v4).first?.value)
    let quotes = Self.scalars(filter).filter { $0 == "'" }.count
    // The two delimiters plus every one of the value's two quotes doubled.
    #expect(quotes == 2 + 2 * 2)
    #expect(
      Self.scalars(filter) == Self.scalars("CategoryName eq 'Mice''\u{0301} or CategoryName ne '''")
    )
  }

  @Test func searchPhraseEscapesAQuoteJoinedToACombiningMark() throws {
    let query = ODataQuery(entitySet: Product.entitySet).search(.term("a\"\u{0301} OR b"))
    let search = try #require(try query.queryOptions(version: .v4).first { $0.name == "$search" })
    #expect(Self.scalars(search.value) == Self.scalars("\"a\\\"\u{0301} OR b\""))
  }

  @Test func earlyDatesUseTheProlepticGregorianCalendar() {
    // Foundation's Gregorian calendar is Julian before 1582; ISO 8601 and OData are not.
    let yearOne = Date(timeIntervalSince1970: -62_135_596_800)
    #expect(ODataValue.dateTime(yearOne).literal(for: .v2) == "datetime'0001-01-01T00:00:00'")
    #expect(ODataValue.dateTimeOffset(yearOne).literal(for: .v4) == "0001-01-01T00:00:00Z")
    let reformation = Date(timeIntervalSince1970: -12_219_292_800 - 86_400)
    #expect(ODataValue.dateTime(reformation).literal(for: .v4) == "1582-10-14T00:00:00Z")
  }

  @Test func millisecondsThatRoundToASecondCarryIntoIt() {
    let almost = Date(timeIntervalSince1970: 59.9996)
    #expect(ODataValue.dateTime(almost).literal(for: .v4) == "1970-01-01T00:01:00Z")
    let before = Date(timeIntervalSince1970: -0.0004)
    #expect(ODataValue.dateTime(before).literal(for: .v4) == "1970-01-01T00:00:00Z")
    let negative = Date(timeIntervalSince1970: -0.25)
    #expect(ODataValue.dateTime(negative).literal(for: .v4) == "1969-12-31T23:59:59.750Z")
  }

  @Test func payloadDatesReadBackOnTheSameCalendar() {
    let entity = ODataEntity(properties: [
      "First": .string("0001-01-01T00:00:00Z"),
      "Late": .string("9999-12-31T23:59:59.5Z"),
      "BadMonth": .string("2024-13-01T00:00:00Z"),
    ])
    #expect(entity.date("First") == Date(timeIntervalSince1970: -62_135_596_800))
    #expect(entity.date("Late") == Date(timeIntervalSince1970: 253_402_300_799.5))
    #expect(entity.date("BadMonth") == nil)
  }

  /// Fuzz/Regressions/ODataJSON/date-offset-overflow: a service's `/Date(…)/` offset of 20
  /// digits overflowed Int when turned into seconds and trapped.
  @Test func hugeDateOffsetIsRejectedNotTrapped() {
    let entity = ODataEntity(properties: [
      "Overflow": .string("/Date(0 -07566276632451900466)/"),
      "Long": .string("/Date(0+123456)/"),
      "Junk": .string("/Date(0x)/"),
      "Offset": .string("/Date(1705307400000+0060)/"),
      "Plain": .string("/Date(-1000)/"),
    ])
    #expect(entity.date("Overflow") == nil)
    #expect(entity.date("Long") == nil)
    #expect(entity.date("Junk") == nil)
    #expect(entity.date("Offset") == Date(timeIntervalSince1970: 1_705_307_400 - 3600))
    #expect(entity.date("Plain") == Date(timeIntervalSince1970: -1))
  }

  @Test func unrepresentableDatesDoNotTrap() {
    let literal = ODataValue.dateTime(Date(timeIntervalSince1970: .infinity)).literal(for: .v4)
    #expect(literal.hasSuffix("Z"))
  }
}
