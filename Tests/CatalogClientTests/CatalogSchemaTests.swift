import CatalogClient
import Foundation
import Testing

/// Schema discovery and checking on the `$metadata` shapes of real catalogs, written out here.
struct CatalogSchemaTests {
  static func metadata(_ document: String) throws -> ServiceMetadata {
    try ServiceMetadata.read(Data(document.utf8))
  }

  @Test func theBundledCatalogIsESPMWithAGTIN() async throws {
    let provider = try OfflineCatalogProvider.bundled()
    let schema = try await provider.catalogSchema()
    var expected = CatalogSchema.espm
    expected.gtin = "GTIN"
    #expect(schema == expected)
    #expect(CatalogSchema.espm.gtin == nil)
    #expect(try await provider.checked(.espm) == .espm)
  }

  @Test func northwindsCategoryIsANavigationPath() throws {
    let schema = try CatalogSchema.detect(in: Self.metadata(MetadataDocuments.northwind))
    #expect(schema.entitySet == "Products")
    #expect(schema.key == "ProductID")
    #expect(schema.keyType == "Edm.Int32")
    #expect(schema.category == "Category/CategoryName")
    #expect(schema.categorySet == "Categories")
    #expect(schema.categorySetProperty == "CategoryName")
    #expect(schema.name == "ProductName")
    #expect(schema.price == "UnitPrice")
    #expect(schema.currency == nil)
    #expect(schema.picture == nil)
  }

  @Test func gatewaysProductSetAndValueHelp() throws {
    let schema = try CatalogSchema.detect(in: Self.metadata(MetadataDocuments.gateway))
    #expect(schema.entitySet == "ProductSet")
    #expect(schema.key == "ProductID")
    #expect(schema.category == "Category")
    #expect(schema.categorySet == "VH_CategorySet")
    #expect(schema.categorySetProperty == "Category")
    #expect(schema.name == "Name")
    #expect(schema.description == "Description")
    #expect(schema.price == "Price")
    #expect(schema.currency == "CurrencyCode")
  }

  @Test func s4ProductGroups() throws {
    let schema = try CatalogSchema.detect(in: Self.metadata(MetadataDocuments.s4Product))
    #expect(schema.entitySet == "A_Product")
    #expect(schema.key == "Product")
    #expect(schema.category == "ProductGroup")
    #expect(schema.name == nil)
    #expect(schema.categorySet == nil)
  }

  @Test func unrecognizedNamesNeedToBeGiven() throws {
    let metadata = try Self.metadata(MetadataDocuments.shop)
    let error = try #require(throws: CatalogError.self) {
      try CatalogSchema.detect(in: metadata)
    }
    #expect(error.code == .invalidSchema)
    #expect(error.message.contains("Artikel, Lieferanten"))
    let schema = try CatalogSchema.detect(
      in: metadata, entitySet: "Artikel", category: "Warengruppe")
    #expect(schema.key == "Nummer")
    #expect(schema.picture == CatalogSchema.mediaResource)
    #expect(schema.name == nil)
  }

  @Test func twoEquallyGoodSetsAreAnErrorNotAGuess() throws {
    let document = MetadataDocuments.gateway.replacingOccurrences(
      of: "<EntitySet Name=\"ProductSet\" EntityType=\"GWSAMPLE_BASIC.Product\"/>",
      with: "<EntitySet Name=\"ProductSet\" EntityType=\"GWSAMPLE_BASIC.Product\"/>"
        + "<EntitySet Name=\"Products\" EntityType=\"GWSAMPLE_BASIC.Product\"/>")
    let error = try #require(throws: CatalogError.self) {
      try CatalogSchema.detect(in: Self.metadata(document))
    }
    #expect(error.message.contains("several product entity sets (ProductSet, Products)"))
  }

  @Test(arguments: [
    (
      CatalogSchema(entitySet: "Produkte", key: "ProductID", category: "Category"),
      "no entity set 'Produkte'; it has BusinessPartnerSet, ProductSet, VH_CategorySet"
    ),
    (
      CatalogSchema(entitySet: "ProductSet", key: "ProductID", category: "Kategorie"),
      "no property 'Kategorie' for the category; it has ProductID, TypeCode, Category"
    ),
    (
      CatalogSchema(entitySet: "ProductSet", key: "ProductID", category: "Category", price: "Name"),
      "the price property 'Name' of ProductSet is Edm.String"
    ),
    (
      CatalogSchema(entitySet: "ProductSet", key: "ProductID", category: "Price"),
      "the category 'Price' is Edm.Decimal"
    ),
    (
      CatalogSchema(
        entitySet: "ProductSet", key: "ProductID", category: "Category", picture: "$value"),
      "has no stream"
    ),
  ])
  func aWrongNameSaysWhatTheServiceHas(_ schema: CatalogSchema, _ expected: String) throws {
    let error = try #require(throws: CatalogError.self) {
      try schema.validated(against: Self.metadata(MetadataDocuments.gateway))
    }
    #expect(error.code == .invalidSchema)
    #expect(error.message.contains(expected), "\(error.message)")
  }

  @Test func aCollectionNavigationIsNotACategory() throws {
    let schema = CatalogSchema(
      entitySet: "Categories", key: "CategoryID", category: "Products/ProductName")
    let error = try #require(throws: CatalogError.self) {
      try schema.validated(against: Self.metadata(MetadataDocuments.northwind))
    }
    #expect(error.message.contains("leads to many entities"))
  }

  @Test func aSchemaFileRoundTrips() throws {
    let json =
      #"{"entitySet":"Artikel","key":"Nummer","category":"Warengruppe","picture":"$value"}"#
    let schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    #expect(schema.keyType == "Edm.String")
    #expect(schema.picture == CatalogSchema.mediaResource)
    let again = try JSONDecoder().decode(
      CatalogSchema.self, from: JSONEncoder().encode(schema))
    #expect(again == schema)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(CatalogSchema.self, from: Data(#"{"entitySet":"A"}"#.utf8))
    }
  }

  @Test func categoriesAreTypedLiterals() throws {
    var schema = try CatalogSchema.detect(in: Self.metadata(MetadataDocuments.northwind))
    #expect(
      try schema.productsQuery(inCategory: "Joe's").relativeURL(version: .v4)
        == "Products?$filter=Category/CategoryName%20eq%20'Joe''s'"
        + "&$select=ProductID,ProductName,UnitPrice&$orderby=ProductID")
    schema.category = "CategoryID"
    schema.categoryType = "Edm.Int32"
    #expect(
      try schema.productsQuery(inCategory: "7").relativeURL(version: .v2)
        .hasPrefix("Products?$filter=CategoryID%20eq%207&"))
    let error = try #require(throws: CatalogError.self) {
      try schema.productsQuery(inCategory: "7 or 1 eq 1")
    }
    #expect(error.code == .invalidArgument)
  }
}
