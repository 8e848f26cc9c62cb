import CatalogClient
import Foundation

/// Random values through the literal encoder and the URL builder must come back unchanged.
///
/// The input makes one ``ODataValue`` and a protocol version. The value is put in a `$filter`
/// (`Name eq <value>`) and a key predicate; the harness then reads the URL back the way a server
/// does (split on `&`, form-decode `+` and `%XX`), checks the option is exactly
/// `Name eq <literal>` and the key segment exactly `Products(<literal>)`, and parses the literal
/// with the grammar of Docs/Design.md section 5 / OData ABNF into a value of the same type,
/// which must equal the original. A value that changed the query's structure, or a literal that
/// does not parse back to its value, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var input = ByteStream(Array(UnsafeBufferPointer(start: data, count: size)))
  let version: ODataVersion = input.byte() & 1 == 0 ? .v2 : .v4
  let value = input.value()
  let literal = value.literal(for: version)
  guard let parsed = LiteralGrammar.parse(literal, like: value, version: version) else {
    fatalError("\(version) literal \(literal) of \(value) does not match the grammar")
  }
  guard LiteralGrammar.same(parsed, value) else {
    fatalError("\(version) literal \(literal) of \(value) parses back as \(parsed)")
  }
  checkFilter(value, literal: literal, version: version)
  checkKey(value, literal: literal, version: version)
  return 0
}

let serviceRoot = URL(string: "http://127.0.0.1:8080/odata/") ?? URL(fileURLWithPath: "/")

func checkFilter(_ value: ODataValue, literal: String, version: ODataVersion) {
  let query = ODataQuery(entitySet: "Products")
    .filter(ODataProperty<ODataValue>(ODataPath("Name")) == value).top(5)
  guard let url = try? query.url(serviceRoot: serviceRoot, version: version),
    let rawQuery = url.query(percentEncoded: true)
  else {
    fatalError("no URL for a filter on \(value)")
  }
  let options = rawQuery.split(separator: "&", omittingEmptySubsequences: false).map {
    $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
      FormDecoding.decode(String($0))
    }
  }
  guard options.count == 2, options[0].count == 2, options[1] == ["$top", "5"],
    options[0][0] == "$filter"
  else {
    fatalError("the value \(value) changed the query's options: \(rawQuery)")
  }
  guard options[0][1] == "Name eq " + literal else {
    fatalError(
      "filter reads back as \(options[0][1] ?? "invalid UTF-8"), wanted Name eq \(literal)")
  }
}

func checkKey(_ value: ODataValue, literal: String, version: ODataVersion) {
  if case .null = value {
    return
  }
  let query = ODataQuery(entitySet: "Products").withKey(value)
  guard let url = try? query.url(serviceRoot: serviceRoot, version: version) else {
    fatalError("no URL for key \(value)")
  }
  let path = url.path(percentEncoded: true)
  guard url.query(percentEncoded: true) == nil, path.hasPrefix("/odata/") else {
    fatalError("the key \(value) changed the URL's structure: \(url.absoluteString)")
  }
  let segments = path.dropFirst("/odata/".count).split(
    separator: "/", omittingEmptySubsequences: false)
  guard segments.count == 1, let segment = FormDecoding.decode(String(segments[0])),
    segment == "Products(" + literal + ")"
  else {
    fatalError("key segment of \(value) reads back wrong: \(url.absoluteString)")
  }
}
