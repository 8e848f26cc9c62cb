import CatalogClient
import Foundation
import Testing

struct QueryRenderingTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  @Test func literalsFollowTheVersionTable() throws {
    let date = MatrixCase.date("2024-02-10T00:00:00")
    let guid = try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
    let table: [(ODataValue, v2: String, v4: String)] = [
      (.string("O'Neil"), "'O''Neil'", "'O''Neil'"),
      (.int64(123), "123L", "123"),
      (.int32(-7), "-7", "-7"),
      (.decimal(MatrixCase.decimal("12.22")), "12.22M", "12.22"),
      (.double(1.2), "1.2d", "1.2"),
      (.single(1.1), "1.1f", "1.1"),
      (.double(.infinity), "INFd", "INF"),
      (
        .guid(guid), "guid'6f9619ff-8b86-d011-b42d-00c04fc964ff'",
        "6f9619ff-8b86-d011-b42d-00c04fc964ff"
      ),
      (.dateTime(date), "datetime'2024-02-10T00:00:00'", "2024-02-10T00:00:00Z"),
      (.dateTimeOffset(date), "datetimeoffset'2024-02-10T00:00:00Z'", "2024-02-10T00:00:00Z"),
      (.dateTime(date + 0.25), "datetime'2024-02-10T00:00:00.250'", "2024-02-10T00:00:00.250Z"),
      (.boolean(true), "true", "true"),
      (.null, "null", "null"),
    ]
    for (value, v2, v4) in table {
      #expect(value.literal(for: .v2) == v2)
      #expect(value.literal(for: .v4) == v4)
    }
  }

  @Test func printsTheExactV4URL() throws {
    let query = Self.products
      .filter(Product.categoryName == "Mice" && Product.price < MatrixCase.decimal("50"))
      .select(Product.productId, Product.name)
      .orderBy(Product.price.descending, Product.name.ascending)
      .top(10).skip(5).inlineCount()
    let root = try #require(URL(string: "http://host/odata"))
    #expect(
      try query.url(serviceRoot: root, version: .v4).absoluteString
        == "http://host/odata/Products?$filter=CategoryName%20eq%20'Mice'%20and%20Price%20lt%2050"
        + "&$select=ProductId,Name&$orderby=Price%20desc,Name&$top=10&$skip=5&$count=true")
    #expect(
      try query.relativeURL(version: .v2)
        == "Products?$filter=CategoryName%20eq%20'Mice'%20and%20Price%20lt%2050M"
        + "&$select=ProductId,Name&$orderby=Price%20desc,Name&$top=10&$skip=5"
        + "&$inlinecount=allpages")
  }

  @Test func stringFunctionsPerVersion() throws {
    let query = Self.products.filter(
      Product.name.lowercased().contains("mäus") || Product.name.hasPrefix("A")
        || Product.name.uppercased().hasSuffix("Z"))
    let v4 = try #require(query.queryOptions(version: .v4).first?.value)
    let v2 = try #require(query.queryOptions(version: .v2).first?.value)
    #expect(
      v4
        == "(contains(tolower(Name),'mäus') or startswith(Name,'A')) or endswith(toupper(Name),'Z')"
    )
    #expect(
      v2
        == "(substringof('mäus',tolower(Name)) or startswith(Name,'A')) or endswith(toupper(Name),'Z')"
    )
    #expect(try query.relativeURL(version: .v4).contains("m%C3%A4us"))
  }

  @Test func groupingAndNegationAreExplicit() throws {
    let a = Product.categoryName == "A"
    let b = Product.categoryName == "B"
    let c = Product.price > MatrixCase.decimal("1")
    let renderings = try [
      ((a || b) && c), (a || (b && c)), !(a && b), (!a && b),
    ].map { try Self.products.filter($0).queryOptions(version: .v4)[0].value }
    #expect(
      renderings == [
        "(CategoryName eq 'A' or CategoryName eq 'B') and Price gt 1",
        "CategoryName eq 'A' or (CategoryName eq 'B' and Price gt 1)",
        "not (CategoryName eq 'A' and CategoryName eq 'B')",
        "not (CategoryName eq 'A') and CategoryName eq 'B'",
      ])
  }

  @Test func inOnV4AndOrChainOnV2() throws {
    let query = Self.products.filter(Product.categoryName.isIn(["Mice", "O'Neil"]))
    #expect(try query.queryOptions(version: .v4)[0].value == "CategoryName in ('Mice','O''Neil')")
    #expect(
      try query.queryOptions(version: .v2)[0].value
        == "(CategoryName eq 'Mice' or CategoryName eq 'O''Neil')")
    #expect(
      try Self.products.filter(Product.categoryName.isIn([])).queryOptions(version: .v4)[0].value
        == "false")
  }

  @Test func countKeyAndCustomOptions() throws {
    #expect(
      try Self.products.filter(Product.price > MatrixCase.decimal("1")).countOnly()
        .relativeURL(version: .v2) == "Products/$count?$filter=Price%20gt%201M")
    #expect(
      try Self.products.withKey("O'Neil/1").relativeURL(version: .v4)
        == "Products('O''Neil%2F1')")
    #expect(
      try Self.products.withKey(Int64(5)).relativeURL(version: .v2) == "Products(5L)")
    #expect(
      try Self.products.customOption("sap-client", "001&x=1").relativeURL(version: .v2)
        == "Products?sap-client=001%26x=1")
    #expect(throws: CatalogError.self) {
      try Self.products.customOption("$top", "1").relativeURL(version: .v4)
    }
    #expect(throws: CatalogError.self) {
      try Self.products.withKey("x").countOnly().relativeURL(version: .v4)
    }
  }

  @Test func expandPerVersion() throws {
    let nested = Self.products.select(Product.productId).expand(
      ODataExpand(Product.category, select: ["MainCategoryName"]))
    #expect(
      try nested.relativeURL(version: .v4)
        == "Products?$select=ProductId&$expand=Category($select=MainCategoryName)")
    #expect(
      try nested.relativeURL(version: .v2)
        == "Products?$select=ProductId,Category/MainCategoryName&$expand=Category")
    let full = ODataQuery(entitySet: ProductCategory.entitySet).expand(
      ODataExpand(
        ProductCategory.products, select: ["ProductId"],
        filter: Product.price > MatrixCase.decimal("5"),
        orderBy: [Product.price.descending], top: 2, skip: 1,
        expand: [ODataExpand(Product.category)]))
    #expect(
      try full.relativeURL(version: .v4)
        == "ProductCategories?$expand=Products($select=ProductId;$filter=Price%20gt%205;"
        + "$orderby=Price%20desc;$top=2;$skip=1;$expand=Category)")
    #expect(throws: CatalogError.self) { try full.relativeURL(version: .v2) }
    let deep = Self.products.expand(
      ODataExpand(Product.category, expand: [ODataExpand(ProductCategory.products)]))
    #expect(try deep.relativeURL(version: .v2) == "Products?$expand=Category/Products")
  }

  @Test func searchOnlyOnV4() throws {
    let query = Self.products.search(.and(.term("Desk Lamp"), .not(.term("Mug"))))
    #expect(try query.queryOptions(version: .v4)[0].value == "(\"Desk Lamp\" AND NOT Mug)")
    #expect(throws: CatalogError.self) { try query.relativeURL(version: .v2) }
    #expect(
      try Self.products.search(.term("say \"hi\"")).queryOptions(version: .v4)[0].value
        == "\"say \\\"hi\\\"\"")
  }

  @Test func namesCannotCarrySyntax() {
    #expect(throws: CatalogError.self) {
      try ODataQuery(entitySet: "Products?$top=1").relativeURL(version: .v4)
    }
    #expect(throws: CatalogError.self) {
      try Self.products.filter(ODataProperty<String>("Name eq 'x' or Name") == "y")
        .relativeURL(version: .v4)
    }
    #expect(throws: CatalogError.self) {
      try Self.products.select("Name,Price").relativeURL(version: .v4)
    }
  }

  @Test func valuesCannotChangeStructure() throws {
    let hostile = "Mice' or CategoryName ne '"
    let query = Self.products.filter(Product.categoryName == hostile)
    for version in ODataVersion.allCases {
      let options = try query.queryOptions(version: version)
      #expect(options.count == 1)
      #expect(options[0].value == "CategoryName eq 'Mice'' or CategoryName ne '''")
    }
    let url = try Self.products.filter(Product.name == "a&$top=1#x+y%20").relativeURL(version: .v4)
    #expect(url == "Products?$filter=Name%20eq%20'a%26$top=1%23x%2By%2520'")
  }
}
