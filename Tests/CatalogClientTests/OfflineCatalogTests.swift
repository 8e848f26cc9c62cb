import CatalogClient
import Foundation
import Testing

struct OfflineCatalogTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  @Test func bundledCatalogIsRealistic() throws {
    let catalog = try OfflineCatalog.bundled()
    #expect(catalog.products.count == 51)
    #expect(catalog.categories.count == 15)
    let names = catalog.products.compactMap(\.name)
    #expect(names.contains { $0.contains("'") })
    #expect(names.contains { $0.unicodeScalars.contains { !$0.isASCII } })
    let categories = Set(catalog.categories.map(\.categoryName))
    for expected in [
      "Notebooks", "Mice", "Keyboards", "Flat Screen Monitors", "Speakers", "Headsets",
      "Digital Cameras", "Espresso Machines", "Mugs", "Smartphones", "Telephones", "Printers",
      "Watches", "Backpacks", "Desk Lamps",
    ] {
      #expect(categories.contains(expected), "\(expected)")
    }
    for category in catalog.categories {
      let members = catalog.products.filter { $0.categoryName == category.categoryName }
      #expect(Int64(members.count) == category.numberOfProducts)
      #expect(members.allSatisfy { $0.mainCategoryName == category.mainCategoryName })
    }
    for product in catalog.products {
      #expect(product.pictureUrl == "/imgs/\(product.productId).jpg")
      #expect(product.price != nil && product.currencyCode != nil)
    }
  }

  @Test func catalogsRoundTripThroughJSON() throws {
    let catalog = try OfflineCatalog.bundled()
    let encoded = try JSONEncoder().encode(catalog)
    #expect(try OfflineCatalog(jsonData: encoded) == catalog)
  }

  @Test(arguments: [
    "", "[]", #"{"categories":[],"products":[{"Name":"no id"}]}"#,
    #"{"categories":[],"products":[{"ProductId":"A"},{"ProductId":"A"}]}"#,
    #"{"categories":[{"CategoryName":"X"},{"CategoryName":"X"}],"products":[]}"#,
    #"{"categories":[],"products":[{"ProductId":"A","Price":"free"}]}"#,
  ])
  func invalidCatalogsAreRejected(_ text: String) {
    let error = #expect(throws: CatalogError.self) { try OfflineCatalog(jsonData: Data(text.utf8)) }
    #expect(error?.code == .invalidCatalog)
  }

  @Test func missingFileIsAnInvalidCatalog() {
    let error = #expect(throws: CatalogError.self) {
      try OfflineCatalog(contentsOf: URL(fileURLWithPath: "/nonexistent/catalog.json"))
    }
    #expect(error?.code == .invalidCatalog)
  }

  @Test func offlineErrorsAreTyped() async throws {
    let offline = try OfflineCatalogProvider.bundled()
    let unknown = await #expect(throws: CatalogError.self) {
      try await offline.fetch(
        Self.products.filter(ODataProperty<String>("Nope") == "x"), maximumPages: 1)
    }
    #expect(unknown?.code == .unsupportedQuery)
    let mismatch = await #expect(throws: CatalogError.self) {
      try await offline.fetch(
        Self.products.filter(ODataProperty<ODataValue>("Price") == .string("x")),
        maximumPages: 1)
    }
    #expect(mismatch?.code == .unsupportedQuery)
    let missing = await #expect(throws: CatalogError.self) {
      try await offline.entity(Self.products.withKey("HT-0000"))
    }
    #expect(missing?.code == .notFound)
    let noSet = await #expect(throws: CatalogError.self) {
      try await offline.fetch(ODataQuery(entitySet: "Nope"), maximumPages: 1)
    }
    #expect(noSet?.code == .notFound)
  }

  @Test func nullsFollowThreeValuedLogic() async throws {
    let catalog = try OfflineCatalog(
      categories: [],
      products: [Product(productId: "A", name: "Alpha"), Product(productId: "B")])
    let offline = OfflineCatalogProvider(catalog: catalog)
    func ids(_ expression: ODataExpression) async throws -> [String] {
      try await offline.fetch(Self.products.filter(expression), maximumPages: 1)
        .entities.compactMap { $0.string("ProductId") }
    }
    #expect(try await ids(Product.name == "Alpha") == ["A"])
    #expect(try await ids(Product.name != "Alpha") == ["B"])
    #expect(try await ids(!(Product.name.contains("l"))) == [])
    #expect(try await ids(ODataProperty<ODataValue>("Name") == .null) == ["B"])
    #expect(try await ids(Product.name.contains("l") || Product.productId == "B") == ["A", "B"])
    let ordered = try await offline.fetch(
      Self.products.orderBy(Product.name.ascending), maximumPages: 1)
    #expect(ordered.entities.compactMap { $0.string("ProductId") } == ["B", "A"])
  }
}
