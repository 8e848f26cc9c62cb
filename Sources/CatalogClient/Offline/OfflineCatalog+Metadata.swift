extension OfflineCatalog {
  /// The `$metadata` (CSDL 4.0) of a local catalog: ESPM's `Products` (with a `GTIN`) and
  /// `ProductCategories` with the properties the offline evaluator answers, so schema discovery
  /// and checking read a local catalog the way they read a service.
  static let metadataDocument = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
     <edmx:DataServices>
      <Schema Namespace="ESPM" xmlns="http://docs.oasis-open.org/odata/ns/edm">
       <EntityType Name="Product">
        <Key><PropertyRef Name="ProductId"/></Key>
        <Property Name="ProductId" Type="Edm.String" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="ShortDescription" Type="Edm.String"/>
        <Property Name="CategoryName" Type="Edm.String"/>
        <Property Name="MainCategoryName" Type="Edm.String"/>
        <Property Name="Price" Type="Edm.Decimal" Precision="12" Scale="3"/>
        <Property Name="CurrencyCode" Type="Edm.String"/>
        <Property Name="PictureUrl" Type="Edm.String"/>
        <Property Name="Weight" Type="Edm.Decimal" Precision="12" Scale="3"/>
        <Property Name="WeightUnit" Type="Edm.String"/>
        <Property Name="StockQuantity" Type="Edm.Int64"/>
        <Property Name="UpdatedTimestamp" Type="Edm.DateTimeOffset"/>
        <Property Name="GTIN" Type="Edm.String"/>
        <NavigationProperty Name="Category" Type="ESPM.ProductCategory" Partner="Products"/>
       </EntityType>
       <EntityType Name="ProductCategory">
        <Key><PropertyRef Name="CategoryName"/></Key>
        <Property Name="CategoryName" Type="Edm.String" Nullable="false"/>
        <Property Name="MainCategoryName" Type="Edm.String"/>
        <Property Name="NumberOfProducts" Type="Edm.Int64"/>
        <NavigationProperty Name="Products" Type="Collection(ESPM.Product)" Partner="Category"/>
       </EntityType>
       <EntityContainer Name="EntityContainer">
        <EntitySet Name="Products" EntityType="ESPM.Product">
         <NavigationPropertyBinding Path="Category" Target="ProductCategories"/>
        </EntitySet>
        <EntitySet Name="ProductCategories" EntityType="ESPM.ProductCategory">
         <NavigationPropertyBinding Path="Products" Target="Products"/>
        </EntitySet>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """
}
