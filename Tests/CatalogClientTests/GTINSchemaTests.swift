import CatalogClient
import Foundation
import Testing

/// The GTIN in a catalog schema: found in `$metadata` by its usual names, checked, read from and
/// written to schema files, and turned into a query whose values are always literals.
struct GTINSchemaTests {
  /// A v4 `$metadata` whose `Products` have a key, a name, a category and `properties`.
  static func metadata(_ properties: [(String, String)], key: String = "ProductId") throws
    -> ServiceMetadata
  {
    let declared = properties.filter { $0.0 != key }.map {
      "<Property Name=\"\($0.0)\" Type=\"\($0.1)\"/>"
    }
    let document = """
      <?xml version="1.0" encoding="utf-8"?>
      <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
       <edmx:DataServices>
        <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
         <EntityType Name="Product">
          <Key><PropertyRef Name="\(key)"/></Key>
          <Property Name="\(key)" Type="Edm.String" Nullable="false"/>
          <Property Name="Name" Type="Edm.String"/>
          <Property Name="CategoryName" Type="Edm.String"/>
          \(declared.joined(separator: "\n"))
         </EntityType>
         <EntityContainer Name="Container">
          <EntitySet Name="Products" EntityType="Shop.Product"/>
         </EntityContainer>
        </Schema>
       </edmx:DataServices>
      </edmx:Edmx>
      """
    return try ServiceMetadata.read(Data(document.utf8))
  }

  static let espmWithEAN: CatalogSchema = {
    var schema = CatalogSchema.espm
    schema.gtin = "EAN"
    return schema
  }()

  // MARK: - Detection

  @Test(arguments: [
    ("GTIN", "Edm.String"), ("gtin14", "Edm.String"), ("GTIN13", "Edm.String"),
    ("GTIN8", "Edm.String"), ("EAN", "Edm.String"), ("EAN13", "Edm.String"),
    ("Ean", "Edm.String"), ("EANCode", "Edm.String"), ("EAN_Code", "Edm.String"),
    ("EAN11", "Edm.String"), ("UPC", "Edm.String"), ("UPCCode", "Edm.String"),
    ("ProductStandardID", "Edm.String"), ("InternationalArticleNumber", "Edm.String"),
    ("Barcode", "Edm.String"), ("BarCode", "Edm.String"), ("EAN", "Edm.Int64"),
    ("GTIN", "Edm.Decimal"),
  ])
  func eachNameFamilyIsRecognized(_ name: String, _ type: String) throws {
    let schema = try CatalogSchema.detect(in: Self.metadata([(name, type)]))
    #expect(schema.gtin == name)
    #expect(schema.gtinType == type)
    #expect(schema.name == "Name")
  }

  @Test(arguments: [
    (["Barcode", "UPC", "EAN", "GTIN13"], "GTIN13"),
    (["Barcode", "InternationalArticleNumber", "EANCode"], "EANCode"),
    (["ProductStandardID", "UPC"], "UPC"),
    (["Barcode", "InternationalArticleNumber"], "InternationalArticleNumber"),
    (["EAN", "GTIN"], "GTIN"),
  ])
  func gtinNamesComeBeforeEANThenUPCThenS4sThenBarcode(_ names: [String], _ expected: String)
    throws
  {
    let schema = try CatalogSchema.detect(
      in: Self.metadata(names.map { ($0, "Edm.String") }))
    #expect(schema.gtin == expected)
  }

  @Test(arguments: [
    [("EAN", "Edm.Int32")], [("Barcode", "Edm.Binary")], [("GTIN", "Edm.Double")],
    [("EANType", "Edm.String")], [("MyGTIN", "Edm.String")], [("Weight", "Edm.Decimal")], [],
  ])
  func otherNamesAndTypesAreNoGTIN(_ properties: [(String, String)]) throws {
    #expect(try CatalogSchema.detect(in: Self.metadata(properties)).gtin == nil)
  }

  @Test func aMistypedNameGivesWayToTheNextThatFits() throws {
    let schema = try CatalogSchema.detect(
      in: Self.metadata([("EAN", "Edm.Int32"), ("Barcode", "Edm.String")]))
    #expect(schema.gtin == "Barcode")
  }

  @Test func theKeyMayBeTheGTIN() throws {
    let schema = try CatalogSchema.detect(in: Self.metadata([], key: "EAN"))
    #expect(schema.key == "EAN")
    #expect(schema.gtin == "EAN")
    let query = try schema.productsQuery(withGTIN: try #require(GTIN("4006381333931")))
    #expect(query.select.map(\.description) == ["EAN", "Name", "CategoryName"])
  }

  @Test func realServicesShapes() throws {
    let s4 = try CatalogSchema.detect(
      in: ServiceMetadata.read(Data(MetadataDocuments.s4Product.utf8)))
    #expect(s4.gtin == "ProductStandardID")
    #expect(s4.gtinType == "Edm.String")
    for document in [MetadataDocuments.northwind, MetadataDocuments.gateway] {
      #expect(try CatalogSchema.detect(in: ServiceMetadata.read(Data(document.utf8))).gtin == nil)
    }
  }

  // MARK: - Given names and checking

  @Test func aGivenNameIsUsedAndChecked() async throws {
    let metadata = try Self.metadata([("ArtikelCode", "Edm.String"), ("EAN", "Edm.String")])
    #expect(try CatalogSchema.detect(in: metadata, gtin: "ArtikelCode").gtin == "ArtikelCode")
    let missing = try #require(throws: CatalogError.self) {
      try CatalogSchema.detect(in: metadata, gtin: "Nope")
    }
    #expect(missing.code == .invalidSchema)
    #expect(missing.message.contains("no property 'Nope' for the GTIN"), "\(missing.message)")
    let mistyped = try #require(throws: CatalogError.self) {
      try CatalogSchema.detect(
        in: Self.metadata([("Discontinued", "Edm.Boolean")]), gtin: "Discontinued")
    }
    #expect(
      mistyped.message.contains(
        "the GTIN property 'Discontinued' of Products is Edm.Boolean; it must be Edm.Decimal or "
          + "Edm.Int64 or Edm.String"), "\(mistyped.message)")

    let offline = try OfflineCatalogProvider.bundled()
    let price = try await offline.catalogSchema(gtinProperty: "Price")
    #expect(price.gtin == "Price")
    #expect(price.gtinType == "Edm.Decimal")
    let error = await #expect(throws: CatalogError.self) {
      try await offline.catalogSchema(gtinProperty: "EAN")
    }
    #expect(error?.code == .invalidSchema)
  }

  @Test func checkingFillsInTheGTINsType() throws {
    let metadata = try Self.metadata([("EAN", "Edm.Int64")])
    let schema = CatalogSchema(
      entitySet: "Products", key: "ProductId", category: "CategoryName", gtin: "EAN")
    #expect(schema.gtinType == "Edm.String")
    #expect(try schema.validated(against: metadata).gtinType == "Edm.Int64")
    var missing = schema
    missing.gtin = "UPC"
    let error = try #require(throws: CatalogError.self) {
      try missing.validated(against: metadata)
    }
    #expect(error.message.contains("no property 'UPC' for the GTIN"), "\(error.message)")
  }

  // MARK: - Schema files

  @Test func schemaFilesCarryTheGTIN() throws {
    let json = #"{"entitySet":"A_Product","key":"Product","category":"ProductGroup","gtin":"EAN"}"#
    let schema = try JSONDecoder().decode(CatalogSchema.self, from: Data(json.utf8))
    #expect(schema.gtin == "EAN")
    #expect(schema.gtinType == "Edm.String")
    let encoded = try JSONEncoder().encode(schema)
    let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
    #expect(object["gtin"] as? String == "EAN")
    #expect(object["gtinType"] as? String == "Edm.String")
    #expect(try JSONDecoder().decode(CatalogSchema.self, from: encoded) == schema)

    let numeric = #"{"entitySet":"P","key":"K","category":"C","gtin":"G","gtinType":"Edm.Int64"}"#
    #expect(
      try JSONDecoder().decode(CatalogSchema.self, from: Data(numeric.utf8)).gtinType
        == "Edm.Int64")

    let without = try JSONEncoder().encode(CatalogSchema.espm)
    let keys = try #require(try JSONSerialization.jsonObject(with: without) as? [String: Any])
    #expect(keys["gtin"] == nil && keys["gtinType"] == nil)
  }

  // MARK: - Queries

  static func options(_ query: ODataQuery, _ version: ODataVersion) throws -> [String: String] {
    Dictionary(
      try query.queryOptions(version: version).map { ($0.name, $0.value) },
      uniquingKeysWith: { first, _ in first })
  }

  @Test(arguments: ODataVersion.allCases)
  func aStringGTINIsComparedInEachStoredForm(_ version: ODataVersion) throws {
    let ean = try Self.espmWithEAN.productsQuery(withGTIN: try #require(GTIN("4006381333931")))
    #expect(
      try Self.options(ean, version)
        == [
          "$filter": "EAN eq '04006381333931' or EAN eq '4006381333931'",
          "$select": "ProductId,Name,CategoryName,Price,CurrencyCode,PictureUrl,ShortDescription,"
            + "EAN",
          "$orderby": "ProductId",
        ])
    #expect(
      try ean.relativeURL(version: version)
        == "Products?$filter=EAN%20eq%20'04006381333931'%20or%20EAN%20eq%20'4006381333931'"
        + "&$select=ProductId,Name,CategoryName,Price,CurrencyCode,PictureUrl,ShortDescription,EAN"
        + "&$orderby=ProductId")
    let upc = try Self.espmWithEAN.productsQuery(withGTIN: try #require(GTIN("036000291452")))
    #expect(
      try Self.options(upc, version)["$filter"]
        == "(EAN eq '00036000291452' or EAN eq '0036000291452') or EAN eq '036000291452'")
    let ean8 = try Self.espmWithEAN.productsQuery(withGTIN: try #require(GTIN("96385074")))
    let filter = try #require(try Self.options(ean8, version)["$filter"])
    for form in ["'00000096385074'", "'0000096385074'", "'000096385074'", "'96385074'"] {
      #expect(filter.contains("EAN eq \(form)"), "\(filter)")
    }
  }

  @Test(arguments: ["Edm.Int64", "Edm.Decimal"], ODataVersion.allCases)
  func aNumericGTINIsOneNumber(_ type: String, _ version: ODataVersion) throws {
    var schema = Self.espmWithEAN
    schema.gtinType = type
    let suffix = version == .v2 ? "L" : ""
    for (text, number) in [("036000291452", "36000291452"), ("4006381333931", "4006381333931")] {
      let query = try schema.productsQuery(withGTIN: try #require(GTIN(text)))
      #expect(try Self.options(query, version)["$filter"] == "EAN eq \(number)\(suffix)")
    }
  }

  @Test func aSchemaWithoutAGTINCannotLookOneUp() throws {
    let gtin = try #require(GTIN("4006381333931"))
    let error = try #require(throws: CatalogError.self) {
      try CatalogSchema.espm.productsQuery(withGTIN: gtin)
    }
    #expect(error.code == .invalidArgument)
    var odd = Self.espmWithEAN
    odd.gtinType = "Edm.Int32"
    let type = try #require(throws: CatalogError.self) { try odd.productsQuery(withGTIN: gtin) }
    #expect(type.code == .invalidSchema)
  }
}
