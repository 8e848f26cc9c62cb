import CatalogClient
import Foundation
import Testing

/// `ServiceMetadata.read` against real `$metadata` shapes (the test server's ESPM v2 document,
/// Northwind v4, SAP Gateway's GWSAMPLE_BASIC v2) and against hostile or broken documents.
struct MetadataReaderTests {
  func read(_ text: String, maximumElements: Int = 200_000) throws -> ServiceMetadata {
    try ServiceMetadata.read(Data(text.utf8), maximumElements: maximumElements)
  }

  /// Expects `.invalidMetadata` with a message that contains every one of `facts`.
  func expectRejected(
    _ data: Data, mentioning facts: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let error = #expect(throws: CatalogError.self, sourceLocation: sourceLocation) {
      try ServiceMetadata.read(data)
    }
    #expect(error?.code == .invalidMetadata, sourceLocation: sourceLocation)
    #expect(error?.code.description == "invalidMetadata", sourceLocation: sourceLocation)
    let message = error?.message ?? ""
    for fact in facts {
      #expect(message.contains(fact), "message: \(message)", sourceLocation: sourceLocation)
    }
  }

  /// A v4 document with one schema around `body`.
  func v4Document(_ body: String) -> Data {
    Data(
      """
      <?xml version="1.0" encoding="utf-8"?>
      <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
       <edmx:DataServices>
        <Schema Namespace="NS" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      \(body)
        </Schema>
       </edmx:DataServices>
      </edmx:Edmx>
      """.utf8)
  }

  // MARK: - Real documents

  /// What `metadata_xml()` in `Scripts/odata-servers/serve_v2.py` serves.
  static let espmV2 = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
      xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
     <edmx:DataServices m:DataServiceVersion="2.0">
      <Schema Namespace="ESPM" xmlns="http://schemas.microsoft.com/ado/2006/04/edm">
       <EntityType Name="Product">
        <Key><PropertyRef Name="ProductId"/></Key>
        <Property Name="ProductId" Type="Edm.String" Nullable="false"/>
    <Property Name="Name" Type="Edm.String" Nullable="true"/>
    <Property Name="ShortDescription" Type="Edm.String" Nullable="true"/>
    <Property Name="CategoryName" Type="Edm.String" Nullable="true"/>
    <Property Name="MainCategoryName" Type="Edm.String" Nullable="true"/>
    <Property Name="Price" Type="Edm.Decimal" Nullable="true" Precision="12" Scale="3"/>
    <Property Name="CurrencyCode" Type="Edm.String" Nullable="true"/>
    <Property Name="PictureUrl" Type="Edm.String" Nullable="true"/>
    <Property Name="Weight" Type="Edm.Decimal" Nullable="true" Precision="12" Scale="3"/>
    <Property Name="WeightUnit" Type="Edm.String" Nullable="true"/>
    <Property Name="StockQuantity" Type="Edm.Int64" Nullable="true"/>
    <Property Name="UpdatedTimestamp" Type="Edm.DateTime" Nullable="true"/>
        <NavigationProperty Name="Category" Relationship="ESPM.Product_Category"
          FromRole="Product" ToRole="Category"/>
       </EntityType>
       <EntityType Name="ProductCategory">
        <Key><PropertyRef Name="CategoryName"/></Key>
        <Property Name="CategoryName" Type="Edm.String" Nullable="false"/>
    <Property Name="MainCategoryName" Type="Edm.String" Nullable="true"/>
    <Property Name="NumberOfProducts" Type="Edm.Int64" Nullable="true"/>
        <NavigationProperty Name="Products" Relationship="ESPM.Product_Category"
          FromRole="Category" ToRole="Product"/>
       </EntityType>
       <Association Name="Product_Category">
        <End Role="Product" Type="ESPM.Product" Multiplicity="*"/>
        <End Role="Category" Type="ESPM.ProductCategory" Multiplicity="0..1"/>
       </Association>
       <EntityContainer Name="EntityContainer" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Products" EntityType="ESPM.Product"/>
        <EntitySet Name="ProductCategories" EntityType="ESPM.ProductCategory"/>
        <AssociationSet Name="Products_Categories" Association="ESPM.Product_Category">
         <End Role="Product" EntitySet="Products"/>
         <End Role="Category" EntitySet="ProductCategories"/>
        </AssociationSet>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """

  @Test func espmV2SetsKeysAndTypes() throws {
    let metadata = try read(Self.espmV2)
    #expect(
      metadata.entitySets == [
        .init(name: "Products", entityType: "ESPM.Product"),
        .init(name: "ProductCategories", entityType: "ESPM.ProductCategory"),
      ])
    #expect(metadata.entityTypes.keys.sorted() == ["ESPM.Product", "ESPM.ProductCategory"])
    let products = try #require(metadata.entitySet(named: "Products"))
    let product = try #require(metadata.entityType(of: products))
    #expect(product.qualifiedName == "ESPM.Product")
    #expect(product.name == "Product")
    #expect(product.key == ["ProductId"])
    #expect(product.properties.count == 12)
    #expect(product.properties.first?.name == "ProductId")
    #expect(product.properties.last?.name == "UpdatedTimestamp")
    #expect(
      product.property(named: "ProductId")
        == .init(name: "ProductId", type: "Edm.String", isNullable: false))
    #expect(
      product.property(named: "Price")
        == .init(name: "Price", type: "Edm.Decimal", isNullable: true)
    )
    #expect(product.property(named: "StockQuantity")?.type == "Edm.Int64")
    #expect(product.property(named: "UpdatedTimestamp")?.type == "Edm.DateTime")
    #expect(product.property(named: "Category") == nil)
    #expect(!product.hasStream)
  }

  @Test func espmV2NavigationThroughTheAssociation() throws {
    let metadata = try read(Self.espmV2)
    let product = try #require(metadata.entityTypes["ESPM.Product"])
    #expect(
      product.navigationProperties == [
        .init(name: "Category", targetType: "ESPM.ProductCategory", isCollection: false)
      ])
    let category = try #require(metadata.entityTypes["ESPM.ProductCategory"])
    #expect(category.key == ["CategoryName"])
    #expect(
      category.navigationProperty(named: "Products")
        == .init(name: "Products", targetType: "ESPM.Product", isCollection: true))
    let target = try #require(product.navigationProperty(named: "Category")?.targetType)
    #expect(metadata.entitySet(ofType: target)?.name == "ProductCategories")
    #expect(metadata.entitySet(ofType: "ESPM.Nothing") == nil)
  }

  /// An excerpt of `https://services.odata.org/V4/Northwind/Northwind.svc/$metadata`.
  static let northwindV4 = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="NorthwindModel" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Category">
            <Key>
              <PropertyRef Name="CategoryID" />
            </Key>
            <Property Name="CategoryID" Type="Edm.Int32" Nullable="false" \
    p5:StoreGeneratedPattern="Identity" \
    xmlns:p5="http://schemas.microsoft.com/ado/2009/02/edm/annotation" />
            <Property Name="CategoryName" Type="Edm.String" Nullable="false" MaxLength="15" />
            <Property Name="Description" Type="Edm.String" MaxLength="max" />
            <Property Name="Picture" Type="Edm.Binary" MaxLength="max" />
            <NavigationProperty Name="Products" Type="Collection(NorthwindModel.Product)" \
    Partner="Category" />
          </EntityType>
          <EntityType Name="Order_Detail">
            <Key>
              <PropertyRef Name="OrderID" />
              <PropertyRef Name="ProductID" />
            </Key>
            <Property Name="OrderID" Type="Edm.Int32" Nullable="false" />
            <Property Name="ProductID" Type="Edm.Int32" Nullable="false" />
            <Property Name="UnitPrice" Type="Edm.Decimal" Nullable="false" Precision="19" \
    Scale="4" />
            <Property Name="Quantity" Type="Edm.Int16" Nullable="false" />
            <Property Name="Discount" Type="Edm.Single" Nullable="false" />
            <NavigationProperty Name="Product" Type="NorthwindModel.Product" Nullable="false" \
    Partner="Order_Details">
              <ReferentialConstraint Property="ProductID" ReferencedProperty="ProductID" />
            </NavigationProperty>
          </EntityType>
          <EntityType Name="Product">
            <Key>
              <PropertyRef Name="ProductID" />
            </Key>
            <Property Name="ProductID" Type="Edm.Int32" Nullable="false" \
    p5:StoreGeneratedPattern="Identity" \
    xmlns:p5="http://schemas.microsoft.com/ado/2009/02/edm/annotation" />
            <Property Name="ProductName" Type="Edm.String" Nullable="false" MaxLength="40" />
            <Property Name="SupplierID" Type="Edm.Int32" />
            <Property Name="CategoryID" Type="Edm.Int32" />
            <Property Name="QuantityPerUnit" Type="Edm.String" MaxLength="20" />
            <Property Name="UnitPrice" Type="Edm.Decimal" Precision="19" Scale="4" />
            <Property Name="UnitsInStock" Type="Edm.Int16" />
            <Property Name="UnitsOnOrder" Type="Edm.Int16" />
            <Property Name="ReorderLevel" Type="Edm.Int16" />
            <Property Name="Discontinued" Type="Edm.Boolean" Nullable="false" />
            <NavigationProperty Name="Category" Type="NorthwindModel.Category" \
    Partner="Products">
              <ReferentialConstraint Property="CategoryID" ReferencedProperty="CategoryID" />
            </NavigationProperty>
            <NavigationProperty Name="Order_Details" \
    Type="Collection(NorthwindModel.Order_Detail)" Partner="Product" />
            <NavigationProperty Name="Supplier" Type="NorthwindModel.Supplier" \
    Partner="Products">
              <ReferentialConstraint Property="SupplierID" ReferencedProperty="SupplierID" />
            </NavigationProperty>
          </EntityType>
          <EntityType Name="Supplier">
            <Key>
              <PropertyRef Name="SupplierID" />
            </Key>
            <Property Name="SupplierID" Type="Edm.Int32" Nullable="false" \
    p5:StoreGeneratedPattern="Identity" \
    xmlns:p5="http://schemas.microsoft.com/ado/2009/02/edm/annotation" />
            <Property Name="CompanyName" Type="Edm.String" Nullable="false" MaxLength="40" />
            <Property Name="Country" Type="Edm.String" MaxLength="15" />
            <NavigationProperty Name="Products" Type="Collection(NorthwindModel.Product)" \
    Partner="Supplier" />
          </EntityType>
        </Schema>
        <Schema Namespace="ODataWebV4.Northwind.Model" \
    xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityContainer Name="NorthwindEntities" p5:LazyLoadingEnabled="true" \
    xmlns:p5="http://schemas.microsoft.com/ado/2009/02/edm/annotation">
            <EntitySet Name="Categories" EntityType="NorthwindModel.Category">
              <NavigationPropertyBinding Path="Products" Target="Products" />
            </EntitySet>
            <EntitySet Name="Order_Details" EntityType="NorthwindModel.Order_Detail">
              <NavigationPropertyBinding Path="Product" Target="Products" />
            </EntitySet>
            <EntitySet Name="Products" EntityType="NorthwindModel.Product">
              <NavigationPropertyBinding Path="Category" Target="Categories" />
              <NavigationPropertyBinding Path="Order_Details" Target="Order_Details" />
              <NavigationPropertyBinding Path="Supplier" Target="Suppliers" />
            </EntitySet>
            <EntitySet Name="Suppliers" EntityType="NorthwindModel.Supplier">
              <NavigationPropertyBinding Path="Products" Target="Products" />
            </EntitySet>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

  @Test func northwindV4() throws {
    let metadata = try read(Self.northwindV4)
    #expect(
      metadata.entitySets.map(\.name) == ["Categories", "Order_Details", "Products", "Suppliers"])
    #expect(metadata.entitySet(named: "Products")?.entityType == "NorthwindModel.Product")
    #expect(metadata.entityTypes.count == 4)
    let category = try #require(metadata.entityTypes["NorthwindModel.Category"])
    #expect(category.key == ["CategoryID"])
    #expect(
      category.navigationProperty(named: "Products")
        == .init(name: "Products", targetType: "NorthwindModel.Product", isCollection: true))
    let product = try #require(metadata.entityTypes["NorthwindModel.Product"])
    #expect(
      product.navigationProperties == [
        .init(name: "Category", targetType: "NorthwindModel.Category", isCollection: false),
        .init(name: "Order_Details", targetType: "NorthwindModel.Order_Detail", isCollection: true),
        .init(name: "Supplier", targetType: "NorthwindModel.Supplier", isCollection: false),
      ])
    #expect(product.properties.map(\.name).prefix(3) == ["ProductID", "ProductName", "SupplierID"])
    #expect(product.property(named: "UnitPrice")?.type == "Edm.Decimal")
    #expect(product.property(named: "UnitPrice")?.isNullable == true)
    #expect(product.property(named: "Discontinued")?.isNullable == false)
    let detail = try #require(metadata.entityTypes["NorthwindModel.Order_Detail"])
    #expect(detail.key == ["OrderID", "ProductID"])
    #expect(metadata.entitySet(ofType: "NorthwindModel.Category")?.name == "Categories")
  }

  /// An excerpt of SAP Gateway's `/sap/opu/odata/iwbep/GWSAMPLE_BASIC/$metadata`.
  static let gatewaySampleV2 = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" \
    xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" \
    xmlns:sap="http://www.sap.com/Protocols/SAPData">
      <edmx:DataServices m:DataServiceVersion="2.0">
        <Schema Namespace="GWSAMPLE_BASIC" xml:lang="en" sap:schema-version="1" \
    xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
          <EntityType Name="BusinessPartner" sap:content-version="1">
            <Key>
              <PropertyRef Name="BusinessPartnerID"/>
            </Key>
            <Property Name="Address" Type="GWSAMPLE_BASIC.CT_Address" Nullable="false"/>
            <Property Name="BusinessPartnerID" Type="Edm.String" Nullable="false" \
    MaxLength="10" sap:unicode="false" sap:label="Bus. Part. ID" sap:creatable="false" \
    sap:updatable="false"/>
            <Property Name="CompanyName" Type="Edm.String" Nullable="false" MaxLength="80" \
    sap:unicode="false" sap:label="Company Name"/>
            <Property Name="CurrencyCode" Type="Edm.String" Nullable="false" MaxLength="5" \
    sap:unicode="false" sap:label="Currency" sap:semantics="currency-code"/>
            <NavigationProperty Name="ToProducts" \
    Relationship="GWSAMPLE_BASIC.Assoc_BusinessPartner_Products" \
    FromRole="FromRole_Assoc_BusinessPartner_Products" \
    ToRole="ToRole_Assoc_BusinessPartner_Products"/>
          </EntityType>
          <EntityType Name="Product" m:HasStream="true" sap:content-version="1">
            <Key>
              <PropertyRef Name="ProductID"/>
            </Key>
            <Property Name="ProductID" Type="Edm.String" Nullable="false" MaxLength="10" \
    sap:unicode="false" sap:label="Product ID" sap:creatable="false" sap:updatable="false"/>
            <Property Name="Category" Type="Edm.String" Nullable="false" MaxLength="40" \
    sap:unicode="false" sap:label="Prod. Cat."/>
            <Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="255" \
    sap:unicode="false" sap:label="Product Name" sap:sortable="false" sap:filterable="false"/>
            <Property Name="SupplierID" Type="Edm.String" Nullable="false" MaxLength="10" \
    sap:unicode="false" sap:label="Bus. Part. ID" sap:creatable="false" sap:updatable="false"/>
            <Property Name="Price" Type="Edm.Decimal" Precision="16" Scale="3" \
    sap:unit="CurrencyCode" sap:unicode="false" sap:label="Unit Price"/>
            <Property Name="CurrencyCode" Type="Edm.String" MaxLength="5" sap:unicode="false" \
    sap:label="Currency" sap:semantics="currency-code"/>
            <Property Name="CreatedAt" Type="Edm.DateTime" Precision="7" sap:unicode="false" \
    sap:label="Time Stamp" sap:creatable="false" sap:updatable="false"/>
            <NavigationProperty Name="ToSupplier" \
    Relationship="GWSAMPLE_BASIC.Assoc_BusinessPartner_Products" \
    FromRole="ToRole_Assoc_BusinessPartner_Products" \
    ToRole="FromRole_Assoc_BusinessPartner_Products"/>
          </EntityType>
          <ComplexType Name="CT_Address">
            <Property Name="City" Type="Edm.String" MaxLength="40" sap:unicode="false" \
    sap:label="City"/>
            <Property Name="Country" Type="Edm.String" MaxLength="3" sap:unicode="false" \
    sap:label="Country"/>
          </ComplexType>
          <Association Name="Assoc_BusinessPartner_Products" sap:content-version="1">
            <End Type="GWSAMPLE_BASIC.BusinessPartner" Multiplicity="1" \
    Role="FromRole_Assoc_BusinessPartner_Products"/>
            <End Type="GWSAMPLE_BASIC.Product" Multiplicity="*" \
    Role="ToRole_Assoc_BusinessPartner_Products"/>
            <ReferentialConstraint>
              <Principal Role="FromRole_Assoc_BusinessPartner_Products">
                <PropertyRef Name="BusinessPartnerID"/>
              </Principal>
              <Dependent Role="ToRole_Assoc_BusinessPartner_Products">
                <PropertyRef Name="SupplierID"/>
              </Dependent>
            </ReferentialConstraint>
          </Association>
          <EntityContainer Name="GWSAMPLE_BASIC_Entities" m:IsDefaultEntityContainer="true" \
    sap:supported-formats="atom json xlsx">
            <EntitySet Name="BusinessPartnerSet" EntityType="GWSAMPLE_BASIC.BusinessPartner" \
    sap:creatable="false" sap:updatable="false" sap:deletable="false" sap:pageable="false" \
    sap:content-version="1"/>
            <EntitySet Name="ProductSet" EntityType="GWSAMPLE_BASIC.Product" \
    sap:content-version="1"/>
            <AssociationSet Name="Assoc_BusinessPartner_Products_AssocSet" \
    Association="GWSAMPLE_BASIC.Assoc_BusinessPartner_Products" sap:creatable="false" \
    sap:updatable="false" sap:deletable="false" sap:content-version="1">
              <End EntitySet="BusinessPartnerSet" Role="FromRole_Assoc_BusinessPartner_Products"/>
              <End EntitySet="ProductSet" Role="ToRole_Assoc_BusinessPartner_Products"/>
            </AssociationSet>
            <FunctionImport Name="RegenerateAllData" ReturnType="Edm.String" \
    m:HttpMethod="POST">
              <Parameter Name="NoOfSalesOrders" Type="Edm.Int32" Mode="In"/>
            </FunctionImport>
          </EntityContainer>
          <atom:link rel="self" \
    href="https://sapes5.sapdevcenter.com/sap/opu/odata/iwbep/GWSAMPLE_BASIC/$metadata" \
    xmlns:atom="http://www.w3.org/2005/Atom"/>
          <atom:link rel="latest-version" \
    href="https://sapes5.sapdevcenter.com/sap/opu/odata/iwbep/GWSAMPLE_BASIC/$metadata" \
    xmlns:atom="http://www.w3.org/2005/Atom"/>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

  @Test func gatewaySampleV2WithSAPAnnotationsAndStreams() throws {
    let metadata = try read(Self.gatewaySampleV2)
    #expect(metadata.entitySets.map(\.name) == ["BusinessPartnerSet", "ProductSet"])
    #expect(metadata.entityTypes.count == 2)
    let product = try #require(metadata.entityTypes["GWSAMPLE_BASIC.Product"])
    #expect(product.hasStream)
    #expect(product.key == ["ProductID"])
    #expect(product.properties.count == 7)
    #expect(product.property(named: "Price")?.type == "Edm.Decimal")
    #expect(product.property(named: "CurrencyCode")?.isNullable == true)
    #expect(
      product.navigationProperty(named: "ToSupplier")
        == .init(
          name: "ToSupplier", targetType: "GWSAMPLE_BASIC.BusinessPartner", isCollection: false))
    let partner = try #require(metadata.entityTypes["GWSAMPLE_BASIC.BusinessPartner"])
    #expect(!partner.hasStream)
    #expect(
      partner.property(named: "Address")
        == .init(name: "Address", type: "GWSAMPLE_BASIC.CT_Address", isNullable: false))
    #expect(partner.property(named: "City") == nil)
    #expect(
      partner.navigationProperty(named: "ToProducts")
        == .init(name: "ToProducts", targetType: "GWSAMPLE_BASIC.Product", isCollection: true))
  }

  @Test func hasStreamFollowsTheNamespaceNotThePrefix() throws {
    let text = Self.gatewaySampleV2
      .replacingOccurrences(of: "xmlns:m=", with: "xmlns:md=")
      .replacingOccurrences(of: " m:", with: " md:")
    #expect(try read(text).entityTypes["GWSAMPLE_BASIC.Product"]?.hasStream == true)
    let foreign = Self.gatewaySampleV2.replacingOccurrences(
      of: "m:HasStream=\"true\"", with: "sap:HasStream=\"true\"")
    #expect(try read(foreign).entityTypes["GWSAMPLE_BASIC.Product"]?.hasStream == false)
  }

  /// Aliases across schemas and a reference, a base type chain declared derived type first,
  /// and two entity containers.
  static let aliasesAndInheritanceV4 = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:Reference \
    Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
        <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
      </edmx:Reference>
      <edmx:DataServices>
        <Schema Namespace="Com.Example.Catalog" Alias="Cat" \
    xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Camera" BaseType="Cat.Product">
            <Property Name="Megapixels" Type="Edm.Double" Nullable="false"/>
            <NavigationProperty Name="Lenses" Type="Collection(Optics.Lens)"/>
          </EntityType>
          <EntityType Name="Product" BaseType="Com.Example.Catalog.Item">
            <Annotation Term="Core.Description" String="Something for sale"/>
            <Property Name="Price" Type="Edm.Decimal" Scale="variable"/>
            <Property Name="Size" Type="Cat.Dimensions"/>
            <NavigationProperty Name="Category" Type="Cat.Category" Nullable="false"/>
          </EntityType>
          <EntityType Name="Item" Abstract="true" HasStream="true">
            <Key>
              <PropertyRef Name="ID"/>
            </Key>
            <Property Name="ID" Type="Edm.Guid" Nullable="false"/>
            <Property Name="Tags" Type="Collection(Cat.Tag)"/>
            <NavigationProperty Name="Supplier" Type="Cat.Supplier"/>
          </EntityType>
          <EntityType Name="Category">
            <Key>
              <PropertyRef Name="Code"/>
            </Key>
            <Property Name="Code" Type="Edm.String" Nullable="false"/>
            <NavigationProperty Name="Products" Type="Collection(Cat.Product)"/>
          </EntityType>
          <EntityType Name="Supplier">
            <Key>
              <PropertyRef Name="Address/Country"/>
              <PropertyRef Name="Name"/>
            </Key>
            <Property Name="Name" Type="Edm.String" Nullable="false"/>
            <Property Name="Address" Type="Cat.Dimensions" Nullable="false"/>
          </EntityType>
          <ComplexType Name="Dimensions">
            <Property Name="Width" Type="Edm.Decimal"/>
          </ComplexType>
          <EnumType Name="Tag">
            <Member Name="New"/>
          </EnumType>
          <EntityContainer Name="Catalog">
            <EntitySet Name="Products" EntityType="Cat.Product"/>
            <EntitySet Name="Cameras" EntityType="Cat.Camera"/>
            <Singleton Name="Featured" Type="Cat.Product"/>
          </EntityContainer>
        </Schema>
        <Schema Namespace="Com.Example.Optics" Alias="Optics" \
    xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Lens" BaseType="Cat.Item">
            <Property Name="FocalLength" Type="Edm.Int32"/>
          </EntityType>
          <EntityContainer Name="Optics">
            <EntitySet Name="Lenses" EntityType="Optics.Lens"/>
            <EntitySet Name="Categories" EntityType="Com.Example.Catalog.Category"/>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

  @Test func aliasesAndBaseTypeChain() throws {
    let metadata = try read(Self.aliasesAndInheritanceV4)
    #expect(
      metadata.entitySets == [
        .init(name: "Products", entityType: "Com.Example.Catalog.Product"),
        .init(name: "Cameras", entityType: "Com.Example.Catalog.Camera"),
        .init(name: "Lenses", entityType: "Com.Example.Optics.Lens"),
        .init(name: "Categories", entityType: "Com.Example.Catalog.Category"),
      ])
    let camera = try #require(metadata.entityTypes["Com.Example.Catalog.Camera"])
    #expect(camera.name == "Camera")
    #expect(camera.key == ["ID"])
    #expect(camera.hasStream)
    #expect(
      camera.properties == [
        .init(name: "ID", type: "Edm.Guid", isNullable: false),
        .init(name: "Tags", type: "Collection(Com.Example.Catalog.Tag)", isNullable: true),
        .init(name: "Price", type: "Edm.Decimal", isNullable: true),
        .init(name: "Size", type: "Com.Example.Catalog.Dimensions", isNullable: true),
        .init(name: "Megapixels", type: "Edm.Double", isNullable: false),
      ])
    #expect(
      camera.navigationProperties == [
        .init(name: "Supplier", targetType: "Com.Example.Catalog.Supplier", isCollection: false),
        .init(name: "Category", targetType: "Com.Example.Catalog.Category", isCollection: false),
        .init(name: "Lenses", targetType: "Com.Example.Optics.Lens", isCollection: true),
      ])
    let lens = try #require(metadata.entityTypes["Com.Example.Optics.Lens"])
    #expect(lens.key == ["ID"])
    #expect(lens.properties.map(\.name) == ["ID", "Tags", "FocalLength"])
    #expect(lens.hasStream)
    let supplier = try #require(metadata.entityTypes["Com.Example.Catalog.Supplier"])
    #expect(supplier.key == ["Address/Country", "Name"])
    #expect(!supplier.hasStream)
    #expect(metadata.entitySet(ofType: "Com.Example.Catalog.Supplier") == nil)
    #expect(metadata.entityTypes.count == 6)
  }

  // MARK: - Hostile and broken documents

  @Test func refusesADocumentTypeDeclarationBeforeExpandingEntities() {
    var entities = #"<!ENTITY lol0 "lol">"#
    for level in 1...9 {
      let body = String(repeating: "&lol\(level - 1);", count: 10)
      entities += "\n <!ENTITY lol\(level) \"\(body)\">"
    }
    let laughs = """
      <?xml version="1.0"?>
      <!DOCTYPE lolz [
       \(entities)
      ]>
      <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
       <edmx:DataServices>
        <Schema Namespace="&lol9;" xmlns="http://docs.oasis-open.org/odata/ns/edm"/>
       </edmx:DataServices>
      </edmx:Edmx>
      """
    expectRejected(Data(laughs.utf8), mentioning: "<!DOCTYPE")
  }

  @Test func refusesTruncatedXMLWithItsLine() {
    let lines = Self.espmV2.split(separator: "\n", omittingEmptySubsequences: false)
    let truncated = lines.prefix(20).joined(separator: "\n")
    expectRejected(Data(truncated.utf8), mentioning: "not well-formed XML", "at line 20")
  }

  @Test func refusesARootOtherThanEdmx() {
    let feed = """
      <?xml version="1.0" encoding="utf-8"?>
      <feed xmlns="http://www.w3.org/2005/Atom"><title>Products</title></feed>
      """
    expectRejected(Data(feed.utf8), mentioning: "not an EDMX document", "'feed'")
    let foreign = #"<Edmx xmlns="urn:example:not-edmx"><DataServices/></Edmx>"#
    expectRejected(Data(foreign.utf8), mentioning: "not an EDMX document", "urn:example:not-edmx")
  }

  @Test func abortsAfterMaximumElements() throws {
    let annotations = String(repeating: #"<Annotation Term="Core.Description"/>"#, count: 300_000)
    expectRejected(v4Document(annotations), mentioning: "more than 200000 elements")
    let error = #expect(throws: CatalogError.self) { try read(Self.espmV2, maximumElements: 34) }
    #expect(error?.message.contains("more than 34 elements") == true)
    #expect(try read(Self.espmV2, maximumElements: 35).entitySets.count == 2)
  }

  @Test func refusesNestingDeeperThan64() {
    let nested =
      String(repeating: "<Documentation>", count: 100)
      + String(repeating: "</Documentation>", count: 100)
    expectRejected(v4Document(nested), mentioning: "nested deeper than 64")
  }

  @Test func refusesAnElementWithTooManyAttributesBeforeParsing() {
    let attributes = (0..<1_000_000).map { " a\($0)=''" }.joined()
    // The byte scan names the line of the tag, which XMLParser would only reach after its
    // quadratic attribute check.
    expectRejected(
      v4Document("<Annotation\(attributes)/>"), mentioning: "more than 128 attributes", "line 5")
  }

  @Test func countsAttributesOnlyInStartTags() throws {
    let equals = String(repeating: "= \" ' > ", count: 200)
    let unquoted = equals.replacingOccurrences(of: "\"", with: "")
    let body = """
      <!-- \(equals) -->
      <?note \(equals) ?>
      <EntityType Name="A"><Key><PropertyRef Name="Id"/></Key>
       <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
       <Documentation><Summary><![CDATA[\(equals)]]></Summary>\(equals)</Documentation>
      </EntityType>
      <Annotation Term="Core.Description" String="\(unquoted)"/>
      """
    let metadata = try ServiceMetadata.read(v4Document(body))
    #expect(metadata.entityTypes["NS.A"]?.key == ["Id"])
  }

  @Test func refusesNamesLongerThan512Bytes() {
    let name = String(repeating: "N", count: 600)
    expectRejected(
      v4Document(#"<EntityType Name="\#(name)"/>"#), mentioning: "Name of a <EntityType>",
      "longer than 512 bytes")
  }

  @Test func refusesABaseTypeCycle() {
    let types = """
      <EntityType Name="A" BaseType="NS.C"><Property Name="Id" Type="Edm.Int32"/></EntityType>
      <EntityType Name="B" BaseType="NS.A"/>
      <EntityType Name="C" BaseType="NS.B"/>
      """
    expectRejected(v4Document(types), mentioning: "cycle", "NS.A")
  }

  @Test func refusesAnUnknownBaseType() {
    expectRejected(
      v4Document(#"<EntityType Name="A" BaseType="NS.Missing"/>"#),
      mentioning: "base type 'NS.Missing'", "not defined")
  }

  @Test func refusesAnEntitySetOfAnUndefinedType() {
    let body = """
      <EntityType Name="Product"><Key><PropertyRef Name="Id"/></Key>
       <Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
      <EntityContainer Name="C">
       <EntitySet Name="Products" EntityType="NS.Product"/>
       <EntitySet Name="Ghosts" EntityType="NS.Ghost"/>
      </EntityContainer>
      """
    expectRejected(v4Document(body), mentioning: "entity set 'Ghosts'", "'NS.Ghost'")
  }

  @Test func refusesAKeyPropertyThatDoesNotExist() {
    let body = """
      <EntityType Name="Product"><Key><PropertyRef Name="ProductId"/></Key>
       <Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
      """
    expectRejected(v4Document(body), mentioning: "key property 'ProductId'", "NS.Product")
  }

  @Test func refusesAnUnknownAssociation() {
    let broken = Self.espmV2.replacingOccurrences(
      of: #"<Association Name="Product_Category">"#, with: #"<Association Name="Other">"#)
    expectRejected(Data(broken.utf8), mentioning: "association 'ESPM.Product_Category'")
  }

  @Test func refusesAMissingAttribute() {
    expectRejected(
      v4Document(#"<EntityType Name="A"><Property Type="Edm.Int32"/></EntityType>"#),
      mentioning: "<Property> element has no Name attribute", "line 5")
  }

  @Test func boundsWhatInheritanceCopies() {
    var types = #"<EntityType Name="T0"><Property Name="P0" Type="Edm.Int32"/></EntityType>"#
    for level in 1..<3_000 {
      types += #"<EntityType Name="T\#(level)" BaseType="NS.T\#(level - 1)">"#
      types += #"<Property Name="P\#(level)" Type="Edm.Int32"/></EntityType>"#
    }
    expectRejected(v4Document(types), mentioning: "more than 200000 inherited members")
  }

  @Test func refusesEmptyData() {
    expectRejected(Data(), mentioning: "empty")
    expectRejected(Data(" \n\t ".utf8), mentioning: "does not start with '<'")
    expectRejected(Data("<a".utf8), mentioning: "no root element")
  }

  @Test func refusesBinaryGarbage() {
    var state: UInt32 = 2_463_534_242
    let garbage = (0..<4_096).map { _ -> UInt8 in
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      return UInt8(truncatingIfNeeded: state)
    }
    expectRejected(Data(garbage), mentioning: "not XML", "NUL")
    let text = [0x80] + garbage.map { $0 == 0 ? 1 : $0 }
    expectRejected(Data(text), mentioning: "not XML", "does not start with '<'")
    let markup = [UInt8(ascii: "<")] + garbage.map { $0 == 0 ? 1 : $0 }
    expectRejected(Data(markup), mentioning: "not well-formed XML", "line")
  }

  @Test func refusesEncodingsOtherThanUTF8() {
    let utf16 = Self.espmV2.data(using: .utf16) ?? Data()
    expectRejected(utf16, mentioning: "not XML")
    let utf7 = Self.espmV2.replacingOccurrences(
      of: "encoding=\"utf-8\"", with: "encoding=\"UTF-7\"")
    expectRejected(Data(utf7.utf8), mentioning: "'UTF-7'", "only UTF-8")
  }
}
