import Foundation
import Testing

@testable import CatalogClient

struct PayloadTests {
  func data(_ text: String) -> Data { Data(text.utf8) }

  @Test func parserKeepsNumbersExactAndDecodesEscapes() throws {
    let value = try JSONParser.parse(
      Array(#"{"a":1399.99,"b":-0.5e-3,"c":"\u00e4\ud83d\ude00\n\"","d":[true,false,null]}"#.utf8))
    #expect(value["a"] == .number("1399.99"))
    #expect(value["b"] == .number("-0.5e-3"))
    #expect(value["c"] == .string("ä😀\n\""))
    #expect(value["d"] == .array([.bool(true), .bool(false), .null]))
  }

  @Test(arguments: [
    #"{"a":"#, #"{"a":1,}"#, #"[1 2]"#, #""\ud800""#, "01", "1.", "\"a\u{01}\"", "{} x", "",
    String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
  ])
  func parserRejectsBrokenJSON(_ text: String) {
    #expect(throws: CatalogError.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  @Test func parserRejectsInvalidUTF8() {
    #expect(throws: CatalogError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
  }

  @Test func v2CollectionShapes() throws {
    let modern = try ODataPayload.collection(
      data(
        #"{"d":{"results":[{"__metadata":{"uri":"x"},"ProductId":"A","Price":"1.50","#
          + #""Category":{"__deferred":{"uri":"y"}}}],"__count":"7","__next":"http://h/P?s=1"}}"#),
      version: .v2)
    #expect(
      modern.entities == [
        ODataEntity(properties: ["ProductId": .string("A"), "Price": .string("1.50")])
      ])
    #expect(modern.count == 7)
    #expect(modern.nextLink == "http://h/P?s=1")
    let pyslet = try ODataPayload.collection(
      data(#"{"d":{"results":[],"__count":3,"__next":{"uri":"http://h/P?s=2"}}}"#), version: .v2)
    #expect(pyslet.count == 3)
    #expect(pyslet.nextLink == "http://h/P?s=2")
    let old = try ODataPayload.collection(data(#"{"d":[{"ProductId":"B"}]}"#), version: .v2)
    #expect(old.entities.count == 1)
    #expect(throws: CatalogError.self) {
      try ODataPayload.collection(data(#"{"value":[]}"#), version: .v2)
    }
  }

  @Test func v4CollectionShapes() throws {
    let page = try ODataPayload.collection(
      data(
        #"{"@odata.context":"c","@odata.count":40,"value":[{"@odata.etag":"e","Name":"A","#
          + #""Name@odata.type":"String","Category":{"CategoryName":"Mice"}}],"@odata.nextLink":"n"}"#
      ),
      version: .v4)
    #expect(page.count == 40)
    #expect(page.nextLink == "n")
    #expect(
      page.entities[0].properties
        == ["Name": .string("A"), "Category": .object(["CategoryName": .string("Mice")])])
    let short = try ODataPayload.collection(data(#"{"@count":"2","value":[]}"#), version: .v4)
    #expect(short.count == 2)
    #expect(throws: CatalogError.self) {
      try ODataPayload.collection(data(#"{"value":[1]}"#), version: .v4)
    }
    #expect(throws: CatalogError.self) {
      try ODataPayload.collection(data(#"{"value":[],"@odata.count":-1}"#), version: .v4)
    }
  }

  @Test func errorBodies() {
    #expect(
      ODataPayload.serviceError(data(#"{"error":{"code":"400","message":"bad"}}"#))
        == ODataServiceError(code: "400", message: "bad"))
    #expect(
      ODataPayload.serviceError(
        data(#"{"error":{"code":"SY/530","message":{"lang":"de","value":"schlecht"}}}"#))
        == ODataServiceError(code: "SY/530", message: "schlecht", language: "de"))
    #expect(ODataPayload.serviceError(data("<html>oops</html>")) == nil)
  }

  @Test func plainCounts() throws {
    #expect(try ODataPayload.plainCount(data("51\n")) == 51)
    #expect(throws: CatalogError.self) { try ODataPayload.plainCount(data("{\"d\":1}")) }
    #expect(throws: CatalogError.self) { try ODataPayload.plainCount(data("-3")) }
  }

  @Test func scalarForms() {
    let entity = ODataEntity(properties: [
      "d2": .string("/Date(1705307400000)/"), "d2offset": .string("/Date(1705307400000+0060)/"),
      "d4": .string("2024-01-15T08:30:00Z"), "d4frac": .string("2024-01-15T09:30:00.5+01:00"),
      "dec": .string("956.00"), "num": .number("1399.99"), "i64": .string("142"),
      "bad": .string("12abc"),
    ])
    let expected = MatrixCase.date("2024-01-15T08:30:00")
    #expect(entity.date("d2") == expected)
    #expect(entity.date("d2offset") == expected - 3600)
    #expect(entity.date("d4") == expected)
    #expect(entity.date("d4frac") == expected + 0.5)
    #expect(entity.decimal("dec") == MatrixCase.decimal("956"))
    #expect(entity.decimal("num") == MatrixCase.decimal("1399.99"))
    #expect(entity.int64("i64") == 142)
    #expect(entity.decimal("bad") == nil)
    #expect(entity.date("bad") == nil)
  }

  @Test func productDecodesBothVersionsExactly() throws {
    let v4 = ODataEntity(properties: [
      "ProductId": .string("HT-1011"), "Price": .number("1399.99"), "StockQuantity": .number("64"),
      "UpdatedTimestamp": .string("2024-03-02T09:15:00Z"),
    ])
    let v2 = ODataEntity(properties: [
      "ProductId": .string("HT-1011"), "Price": .string("1399.99"), "StockQuantity": .string("64"),
      "UpdatedTimestamp": .string("/Date(1709370900000)/"),
    ])
    let fromV4 = try v4.decode(Product.self)
    let fromV2 = try v2.decode(Product.self)
    #expect(fromV4 == fromV2)
    #expect(fromV4.price == MatrixCase.decimal("1399.99"))
    #expect(fromV4.stockQuantity == 64)
    #expect(throws: CatalogError.self) {
      try ODataEntity(properties: ["ProductId": .string("x"), "Price": .string("cheap")])
        .decode(Product.self)
    }
    #expect(throws: CatalogError.self) {
      try ODataEntity(properties: ["Name": .string("no key")]).decode(Product.self)
    }
  }
}
