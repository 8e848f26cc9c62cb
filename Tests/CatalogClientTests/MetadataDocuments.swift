/// `$metadata` documents shaped like real catalogs' (excerpts: the parts a product search reads,
/// with the surrounding noise such services have).
enum MetadataDocuments {
  /// The public Northwind v4 service (`services.odata.org/V4/Northwind/Northwind.svc`).
  static let northwind = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
     <edmx:DataServices>
      <Schema Namespace="NorthwindModel" xmlns="http://docs.oasis-open.org/odata/ns/edm">
       <EntityType Name="Category">
        <Key><PropertyRef Name="CategoryID"/></Key>
        <Property Name="CategoryID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="CategoryName" Type="Edm.String" Nullable="false" MaxLength="15"/>
        <Property Name="Description" Type="Edm.String" MaxLength="max"/>
        <Property Name="Picture" Type="Edm.Binary" MaxLength="max"/>
        <NavigationProperty Name="Products" Type="Collection(NorthwindModel.Product)" Partner="Category"/>
       </EntityType>
       <EntityType Name="Product">
        <Key><PropertyRef Name="ProductID"/></Key>
        <Property Name="ProductID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="ProductName" Type="Edm.String" Nullable="false" MaxLength="40"/>
        <Property Name="SupplierID" Type="Edm.Int32"/>
        <Property Name="CategoryID" Type="Edm.Int32"/>
        <Property Name="QuantityPerUnit" Type="Edm.String" MaxLength="20"/>
        <Property Name="UnitPrice" Type="Edm.Decimal" Precision="19" Scale="4"/>
        <Property Name="UnitsInStock" Type="Edm.Int16"/>
        <Property Name="Discontinued" Type="Edm.Boolean" Nullable="false"/>
        <NavigationProperty Name="Category" Type="NorthwindModel.Category" Partner="Products">
         <ReferentialConstraint Property="CategoryID" ReferencedProperty="CategoryID"/>
        </NavigationProperty>
       </EntityType>
       <EntityType Name="Supplier">
        <Key><PropertyRef Name="SupplierID"/></Key>
        <Property Name="SupplierID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="CompanyName" Type="Edm.String" Nullable="false"/>
       </EntityType>
      </Schema>
      <Schema Namespace="ODataWebV4.Northwind.Model" xmlns="http://docs.oasis-open.org/odata/ns/edm">
       <EntityContainer Name="NorthwindEntities">
        <EntitySet Name="Categories" EntityType="NorthwindModel.Category">
         <NavigationPropertyBinding Path="Products" Target="Products"/>
        </EntitySet>
        <EntitySet Name="Products" EntityType="NorthwindModel.Product">
         <NavigationPropertyBinding Path="Category" Target="Categories"/>
        </EntitySet>
        <EntitySet Name="Suppliers" EntityType="NorthwindModel.Supplier"/>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """

  /// SAP's GWSAMPLE_BASIC on SAP Gateway (v2, with `sap:` annotations).
  static let gateway = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
      xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
      xmlns:sap="http://www.sap.com/Protocols/SAPData">
     <edmx:DataServices m:DataServiceVersion="2.0">
      <Schema Namespace="GWSAMPLE_BASIC" xml:lang="en" sap:schema-version="1"
        xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
       <EntityType Name="BusinessPartner" sap:content-version="1">
        <Key><PropertyRef Name="BusinessPartnerID"/></Key>
        <Property Name="BusinessPartnerID" Type="Edm.String" Nullable="false" MaxLength="10" sap:label="Bus. Part. ID" sap:creatable="false"/>
        <Property Name="CompanyName" Type="Edm.String" Nullable="false" MaxLength="80" sap:label="Company"/>
       </EntityType>
       <EntityType Name="Product" sap:content-version="1">
        <Key><PropertyRef Name="ProductID"/></Key>
        <Property Name="ProductID" Type="Edm.String" Nullable="false" MaxLength="10" sap:label="Product ID"/>
        <Property Name="TypeCode" Type="Edm.String" Nullable="false" MaxLength="2" sap:label="Type Code"/>
        <Property Name="Category" Type="Edm.String" Nullable="false" MaxLength="40" sap:label="Category"/>
        <Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="255" sap:label="Product Name" sap:sortable="false" sap:filterable="false"/>
        <Property Name="NameLanguage" Type="Edm.String" MaxLength="2" sap:label="Language" sap:creatable="false" sap:updatable="false"/>
        <Property Name="Description" Type="Edm.String" MaxLength="255" sap:label="Prod.Descrip." sap:sortable="false" sap:filterable="false"/>
        <Property Name="SupplierID" Type="Edm.String" Nullable="false" MaxLength="10" sap:label="Bus. Part. ID"/>
        <Property Name="WeightMeasure" Type="Edm.Decimal" Precision="13" Scale="3" sap:unit="WeightUnit" sap:label="Wt. Measure"/>
        <Property Name="WeightUnit" Type="Edm.String" MaxLength="3" sap:label="Qty Unit" sap:semantics="unit-of-measure"/>
        <Property Name="CurrencyCode" Type="Edm.String" Nullable="false" MaxLength="5" sap:label="Currency" sap:semantics="currency-code"/>
        <Property Name="Price" Type="Edm.Decimal" Precision="16" Scale="3" sap:unit="CurrencyCode" sap:label="Unit Price"/>
        <Property Name="CreatedAt" Type="Edm.DateTime" Precision="7" sap:label="Time Stamp" sap:creatable="false" sap:updatable="false"/>
        <NavigationProperty Name="ToSupplier" Relationship="GWSAMPLE_BASIC.Assoc_BusinessPartner_Products" FromRole="ToRole_Assoc_BusinessPartner_Products" ToRole="FromRole_Assoc_BusinessPartner_Products"/>
       </EntityType>
       <EntityType Name="VH_Category" sap:content-version="1">
        <Key><PropertyRef Name="Category"/></Key>
        <Property Name="Category" Type="Edm.String" Nullable="false" MaxLength="40" sap:label="Category"/>
        <Property Name="MainCategory" Type="Edm.String" MaxLength="40" sap:label="Main Category"/>
       </EntityType>
       <Association Name="Assoc_BusinessPartner_Products" sap:content-version="1">
        <End Type="GWSAMPLE_BASIC.BusinessPartner" Multiplicity="1" Role="FromRole_Assoc_BusinessPartner_Products"/>
        <End Type="GWSAMPLE_BASIC.Product" Multiplicity="*" Role="ToRole_Assoc_BusinessPartner_Products"/>
       </Association>
       <EntityContainer Name="GWSAMPLE_BASIC_Entities" m:IsDefaultEntityContainer="true" sap:supported-formats="atom json xlsx">
        <EntitySet Name="BusinessPartnerSet" EntityType="GWSAMPLE_BASIC.BusinessPartner" sap:content-version="1"/>
        <EntitySet Name="ProductSet" EntityType="GWSAMPLE_BASIC.Product"/>
        <EntitySet Name="VH_CategorySet" EntityType="GWSAMPLE_BASIC.VH_Category" sap:creatable="false" sap:updatable="false" sap:deletable="false" sap:pageable="false" sap:content-version="1"/>
        <AssociationSet Name="Assoc_BusinessPartner_Products_AssocSet" Association="GWSAMPLE_BASIC.Assoc_BusinessPartner_Products" sap:creatable="false" sap:updatable="false" sap:deletable="false" sap:content-version="1">
         <End EntitySet="BusinessPartnerSet" Role="FromRole_Assoc_BusinessPartner_Products"/>
         <End EntitySet="ProductSet" Role="ToRole_Assoc_BusinessPartner_Products"/>
        </AssociationSet>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """

  /// S/4HANA's product master API (`API_PRODUCT_SRV`, v2).
  static let s4Product = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
      xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
      xmlns:sap="http://www.sap.com/Protocols/SAPData">
     <edmx:DataServices m:DataServiceVersion="2.0">
      <Schema Namespace="API_PRODUCT_SRV" xml:lang="en" sap:schema-version="1"
        xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
       <EntityType Name="A_ProductType" sap:label="Product" sap:content-version="1">
        <Key><PropertyRef Name="Product"/></Key>
        <Property Name="Product" Type="Edm.String" Nullable="false" MaxLength="40" sap:display-format="UpperCase" sap:label="Product"/>
        <Property Name="ProductType" Type="Edm.String" MaxLength="4" sap:label="Product Type"/>
        <Property Name="CrossPlantStatus" Type="Edm.String" MaxLength="2"/>
        <Property Name="ProductGroup" Type="Edm.String" MaxLength="9" sap:label="Product Group"/>
        <Property Name="BaseUnit" Type="Edm.String" MaxLength="3" sap:semantics="unit-of-measure"/>
        <Property Name="GrossWeight" Type="Edm.Decimal" Precision="13" Scale="3" sap:unit="WeightUnit"/>
        <Property Name="WeightUnit" Type="Edm.String" MaxLength="3"/>
        <Property Name="ProductStandardID" Type="Edm.String" MaxLength="18" sap:label="International Article Number (EAN/UPC)"/>
        <NavigationProperty Name="to_Description" Relationship="API_PRODUCT_SRV.assoc_Description" FromRole="FromRole_assoc_Description" ToRole="ToRole_assoc_Description"/>
       </EntityType>
       <EntityType Name="A_ProductDescriptionType" sap:content-version="1">
        <Key><PropertyRef Name="Product"/><PropertyRef Name="Language"/></Key>
        <Property Name="Product" Type="Edm.String" Nullable="false" MaxLength="40"/>
        <Property Name="Language" Type="Edm.String" Nullable="false" MaxLength="2"/>
        <Property Name="ProductDescription" Type="Edm.String" MaxLength="40"/>
       </EntityType>
       <Association Name="assoc_Description" sap:content-version="1">
        <End Type="API_PRODUCT_SRV.A_ProductType" Multiplicity="1" Role="FromRole_assoc_Description"/>
        <End Type="API_PRODUCT_SRV.A_ProductDescriptionType" Multiplicity="*" Role="ToRole_assoc_Description"/>
       </Association>
       <EntityContainer Name="API_PRODUCT_SRV_Entities" m:IsDefaultEntityContainer="true">
        <EntitySet Name="A_Product" EntityType="API_PRODUCT_SRV.A_ProductType" sap:content-version="1"/>
        <EntitySet Name="A_ProductDescription" EntityType="API_PRODUCT_SRV.A_ProductDescriptionType" sap:content-version="1"/>
        <AssociationSet Name="assoc_Description" Association="API_PRODUCT_SRV.assoc_Description">
         <End EntitySet="A_Product" Role="FromRole_assoc_Description"/>
         <End EntitySet="A_ProductDescription" Role="ToRole_assoc_Description"/>
        </AssociationSet>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """

  /// A shop whose names no heuristic knows (v4, media-resource pictures).
  static let shop = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
     <edmx:DataServices>
      <Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
       <EntityType Name="Artikel" HasStream="true">
        <Key><PropertyRef Name="Nummer"/></Key>
        <Property Name="Nummer" Type="Edm.String" Nullable="false"/>
        <Property Name="Bezeichnung" Type="Edm.String"/>
        <Property Name="Warengruppe" Type="Edm.String"/>
        <Property Name="Preis" Type="Edm.Decimal" Scale="3"/>
        <Property Name="Waehrung" Type="Edm.String"/>
       </EntityType>
       <EntityType Name="Lieferant">
        <Key><PropertyRef Name="LieferantNr"/></Key>
        <Property Name="LieferantNr" Type="Edm.String" Nullable="false"/>
        <Property Name="Firma" Type="Edm.String"/>
       </EntityType>
       <EntityContainer Name="Container">
        <EntitySet Name="Artikel" EntityType="Shop.Artikel"/>
        <EntitySet Name="Lieferanten" EntityType="Shop.Lieferant"/>
       </EntityContainer>
      </Schema>
     </edmx:DataServices>
    </edmx:Edmx>
    """
}
