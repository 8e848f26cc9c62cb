import Foundation
import TestSupport
import Testing

/// `products`, `categories` and `find` against catalogs that are not ESPM-shaped, as a user types
/// them: no schema options where `$metadata` is recognized, names or a schema file where not.
@Suite(.enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
struct CatalogShapesCommandLineTests: CommandLineRunning {
  typealias Shape = ODataTestServer.Shape

  /// The recognized shapes on both versions, with the product ids of Telephones in each.
  static let recognized: [(Shape, String, [String])] = [
    (.espm, "2", ["HT-1120", "HT-1121"]), (.espm, "4", ["HT-1120", "HT-1121"]),
    (.northwind, "4", ["35", "36"]), (.northwind, "2", ["35", "36"]),
    (.gateway, "2", ["HT-1120", "HT-1121"]), (.gateway, "4", ["HT-1120", "HT-1121"]),
  ]

  static func root(_ shape: Shape, _ version: String) throws -> String {
    try ODataTestServers.shared(version == "2" ? .v2 : .v4, shape: shape).serviceRoot
      .absoluteString
  }

  static func json(_ outcome: CommandLineOutcome) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
  }

  static func productIds(_ object: [String: Any]) -> [String] {
    (object["products"] as? [[String: Any]] ?? []).compactMap { $0["productId"] as? String }
  }

  @Test(.timeLimit(.minutes(3)), arguments: recognized)
  func productsAndCategoriesNeedNoSchemaOptions(_ shape: Shape, _ version: String, _ ids: [String])
    async throws
  {
    let root = try Self.root(shape, version)
    let service = ["--service", root, "--odata-version", version, "--json"]
    let products = try await run(["products", "--category", "Telephones"] + service)
    #expect(products.status == 0, "\(products.error)")
    let listing = try Self.json(products)
    #expect(Self.productIds(listing) == ids)
    let first = try #require((listing["products"] as? [[String: Any]])?.first)
    #expect(
      Set(first.keys).isSubset(
        of: ["productId", "name", "categoryName", "price", "currencyCode", "pictureUrl"]))
    #expect(first["categoryName"] as? String == "Telephones")
    let categories = try await run(["categories"] + service)
    #expect(categories.status == 0, "\(categories.error)")
    let counts = try #require(try Self.json(categories)["categories"] as? [[String: Any]])
    #expect(counts.count == 15)
    #expect(counts.contains { $0["name"] as? String == "Notebooks" && $0["count"] as? Int == 6 })
  }

  @Test(
    .enabled(if: DefaultModelFixture.model != nil, "needs the default model"),
    .timeLimit(.minutes(3)), arguments: [(Shape.northwind, "4"), (.gateway, "2")])
  func findWorksOnOtherShapes(_ shape: Shape, _ version: String) async throws {
    let root = try Self.root(shape, version)
    let outcome = try await run([
      "find", "Samples/coffee.png", "--service", root, "--odata-version", version, "--json",
    ])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try Self.json(outcome)
    #expect(object["category"] as? String == "Espresso Machines")
    #expect(Self.productIds(object).count == 3)
    #expect((object["query"] as? String)?.hasPrefix(root) == true)
  }

  @Test(.timeLimit(.minutes(3)), arguments: ["2", "4"])
  func unrecognizedNamesAreGivenOrWrittenInAFile(_ version: String) async throws {
    let root = try Self.root(.custom, version)
    let service = ["--service", root, "--odata-version", version]
    let alone = try await run(["products", "--category", "Mugs"] + service)
    #expect(alone.status == 1)
    #expect(errorLines(alone).count == 1, "\(alone.error)")
    #expect(alone.error.contains("--entity-set"))

    let named = try await run(
      [
        "products", "--category", "Mugs", "--entity-set", "Artikel", "--category-property",
        "Warengruppe", "--json",
      ] + service)
    #expect(named.status == 0, "\(named.error)")
    let listing = try Self.json(named)
    #expect(Self.productIds(listing) == ["HT-1100", "HT-1101", "HT-1102"])
    let picture = (listing["products"] as? [[String: Any]])?.first?["pictureUrl"] as? String
    #expect(picture == root + "Artikel('HT-1100')/$value")

    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "schema-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(
      #"{"entitySet": "Artikel", "key": "Nummer", "category": "Warengruppe", "name": "Bezeichnung", "price": "Preis", "currency": "Waehrung", "picture": "$value"}"#
        .utf8
    ).write(to: file)
    let written = try await run(
      ["products", "--category", "Mugs", "--schema", file.path, "--json"] + service)
    #expect(written.status == 0, "\(written.error)")
    let product = try #require((try Self.json(written)["products"] as? [[String: Any]])?.first)
    #expect(product["name"] as? String != nil)
    #expect(product["currencyCode"] as? String != nil)
    #expect(product["price"] != nil)
    let categories = try await run(["categories", "--schema", file.path] + service)
    #expect(categories.status == 0, "\(categories.error)")
    #expect(categories.output.contains("Mugs"))
  }

  @Test(.timeLimit(.minutes(3)))
  func aWrongNameIsOneClearLine() async throws {
    let root = try Self.root(.gateway, "2")
    let outcome = try await run([
      "products", "--category", "Mugs", "--service", root, "--odata-version", "2",
      "--category-property", "Kategorie",
    ])
    #expect(outcome.status == 1)
    let lines = errorLines(outcome)
    #expect(lines.count == 1, "\(outcome.error)")
    #expect(lines.first?.contains("no property 'Kategorie'") == true)
    #expect(lines.first?.contains("Category") == true)
    let combined = try await run([
      "products", "--category", "Mugs", "--schema", "x.json", "--entity-set", "ProductSet",
    ])
    #expect(combined.status == 2)
  }
}
