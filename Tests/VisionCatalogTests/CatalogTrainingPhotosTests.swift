import Foundation
import TestSupport
import Testing
import VisionCatalog

/// A catalog file's pictures as training photos: files inside the catalog's folder only, each
/// product that cannot give one skipped with its reason, and a catalog without any refused.
struct CatalogTrainingPhotosTests {
  static func product(_ id: String, category: String, picture: String) -> [String: Any] {
    [
      "ProductId": id, "Name": id, "ShortDescription": "", "CategoryName": category,
      "MainCategoryName": "Test", "Price": "1.00", "CurrencyCode": "EUR", "PictureUrl": picture,
      "Weight": "1", "WeightUnit": "KG", "StockQuantity": 1,
      "UpdatedTimestamp": "2024-01-01T00:00:00Z",
    ]
  }

  @Test func picturesComeOnlyFromInsideTheCatalogsFolder() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("catalog-photos-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let folder = root.appendingPathComponent("catalog", isDirectory: true)
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("imgs"), withIntermediateDirectories: true)
    try Data("outside".utf8).write(to: root.appendingPathComponent("secret.png"))
    try Data("inside".utf8).write(to: folder.appendingPathComponent("imgs/A.png"))
    let products = [
      Self.product("A", category: "Mugs", picture: "/imgs/A.png"),
      Self.product("B", category: "Mugs", picture: "/../secret.png"),
      Self.product("C", category: "Mice", picture: "/imgs/missing.png"),
      Self.product("D", category: "Mice", picture: ""),
      Self.product("E", category: "Mice", picture: "file:///etc/passwd"),
    ]
    let document: [String: Any] = [
      "categories": [
        ["CategoryName": "Mugs", "MainCategoryName": "Test", "NumberOfProducts": 2],
        ["CategoryName": "Mice", "MainCategoryName": "Test", "NumberOfProducts": 3],
      ],
      "products": products,
    ]
    let file = folder.appendingPathComponent("catalog.json")
    try JSONSerialization.data(withJSONObject: document).write(to: file)
    let source = CatalogSource.file(file)
    let photos = try await CatalogTrainingPhotos.load(
      from: source, provider: try source.makeProvider())
    #expect(photos.productCount == 5)
    #expect(photos.photos.map(\.label) == ["Mugs"])
    #expect(photos.photos.first?.source.encodedData == Data("inside".utf8))
    let reasons = Dictionary(uniqueKeysWithValues: photos.skipped.map { ($0.name, $0.reason) })
    #expect(reasons["product B"]?.contains("not a path inside") == true)
    #expect(reasons["product C"]?.contains("does not exist") == true)
    #expect(reasons["product D"]?.contains("no picture") == true)
    #expect(reasons["product E"]?.contains("not a path inside") == true)
  }

  @Test func theBundledCatalogHasNoPicturesToTrainOn() async throws {
    let error = await #expect(throws: VisionCatalogError.self) {
      try await CatalogTrainingPhotos.load(
        from: .bundled, provider: try CatalogSource.bundled.makeProvider())
    }
    #expect(error?.message.contains("has a picture that could be read") == true)
  }

  /// A catalog with other names trains the same way: the shop's articles are their own pictures
  /// (media resources), labeled with the category its schema names; Northwind's category is a
  /// navigation path, and its products have no pictures.
  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    .timeLimit(.minutes(3)), arguments: [ODataVersion.v2, .v4])
  func otherSchemasGiveTheirPicturesAndCategories(_ version: ODataVersion) async throws {
    let kind: ODataTestServer.Kind = version == .v2 ? .v2 : .v4
    let shop = try ODataTestServers.shared(kind, shape: .custom)
    let source = CatalogSource.service(shop.serviceRoot, version)
    let provider = try source.makeProvider()
    let schema = try await provider.catalogSchema(
      entitySet: "Artikel", categoryProperty: "Warengruppe")
    let photos = try await CatalogTrainingPhotos.load(
      from: source, provider: provider, schema: schema)
    let seed = try OfflineCatalog(contentsOf: ODataTestServer.catalog).products
    #expect(photos.productCount == seed.count)
    #expect(photos.skipped.isEmpty)
    #expect(
      photos.photos.map(\.label)
        == seed.sorted { $0.productId < $1.productId }.map {
          $0.categoryName ?? ""
        })
    let first = try #require(photos.photos.first?.source)
    #expect(first.name.contains("Artikel('HT-1000')/$value"))
    #expect(first.encodedData == Data(("VCIMG:HT-1000:" + String(repeating: "x", count: 64)).utf8))

    let northwind = try ODataTestServers.shared(kind, shape: .northwind)
    let listed = try await CatalogSource.service(northwind.serviceRoot, version).makeProvider()
    let products = try await listed.allProducts(schema: try await listed.catalogSchema())
    #expect(products.count == seed.count)
    #expect(products.allSatisfy { $0.categoryName != nil && $0.pictureUrl == nil })
    let error = await #expect(throws: VisionCatalogError.self) {
      try await CatalogTrainingPhotos.load(
        from: .service(northwind.serviceRoot, version), provider: listed,
        schema: try await listed.catalogSchema())
    }
    #expect(error?.message.contains("has a picture") == true)
  }
}
