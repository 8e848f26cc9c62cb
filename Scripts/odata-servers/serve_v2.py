"""OData v2 test server: pyslet's in-memory store over the catalog JSON.

Prints `READY <port>` once listening. Service root: http://127.0.0.1:<port>/odata/
pyslet's SQLite store is deliberately not used: it compares decimals as text and rejects `not`.
"""

from xml.sax.saxutils import escape

from pyslet.odata2 import memds
from pyslet.odata2 import metadata as edmx
from pyslet.odata2.server import Server

from catalog_model import (
    CATEGORY_PROPERTIES,
    NAMESPACE,
    PRODUCT_PROPERTIES,
    load_catalog,
    python_value,
)
from wsgi_support import PictureAndStatsApp, accepted_authorizations, common_arguments, serve


def _v2_type(edm_type):
    return "Edm.DateTime" if edm_type == "Edm.DateTimeOffset" else edm_type


def _properties_xml(properties, key):
    lines = []
    for name, edm_type in properties:
        facets = ' Precision="12" Scale="3"' if edm_type == "Edm.Decimal" else ""
        nullable = "false" if name == key else "true"
        lines.append(
            '<Property Name="%s" Type="%s" Nullable="%s"%s/>'
            % (name, _v2_type(edm_type), nullable, facets)
        )
    return "\n".join(lines)


def metadata_xml():
    return """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
  xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
 <edmx:DataServices m:DataServiceVersion="2.0">
  <Schema Namespace="{ns}" xmlns="http://schemas.microsoft.com/ado/2006/04/edm">
   <EntityType Name="Product">
    <Key><PropertyRef Name="ProductId"/></Key>
    {product}
    <NavigationProperty Name="Category" Relationship="{ns}.Product_Category"
      FromRole="Product" ToRole="Category"/>
   </EntityType>
   <EntityType Name="ProductCategory">
    <Key><PropertyRef Name="CategoryName"/></Key>
    {category}
    <NavigationProperty Name="Products" Relationship="{ns}.Product_Category"
      FromRole="Category" ToRole="Product"/>
   </EntityType>
   <Association Name="Product_Category">
    <End Role="Product" Type="{ns}.Product" Multiplicity="*"/>
    <End Role="Category" Type="{ns}.ProductCategory" Multiplicity="0..1"/>
   </Association>
   <EntityContainer Name="EntityContainer" m:IsDefaultEntityContainer="true">
    <EntitySet Name="Products" EntityType="{ns}.Product"/>
    <EntitySet Name="ProductCategories" EntityType="{ns}.ProductCategory"/>
    <AssociationSet Name="Products_Categories" Association="{ns}.Product_Category">
     <End Role="Product" EntitySet="Products"/>
     <End Role="Category" EntitySet="ProductCategories"/>
    </AssociationSet>
   </EntityContainer>
  </Schema>
 </edmx:DataServices>
</edmx:Edmx>
""".format(
        ns=escape(NAMESPACE),
        product=_properties_xml(PRODUCT_PROPERTIES, "ProductId"),
        category=_properties_xml(CATEGORY_PROPERTIES, "CategoryName"),
    )


def _fill(entity, row, properties):
    for name, edm_type in properties:
        value = python_value(edm_type, row[name])
        if edm_type == "Edm.DateTimeOffset":
            value = value.replace(tzinfo=None)
        entity[name].set_from_value(value)


def main():
    args = common_arguments(__doc__).parse_args()
    categories, products = load_catalog(args.catalog)
    doc = edmx.Document()
    doc.read(src=metadata_xml().encode("utf-8"))
    container = doc.root.DataServices[NAMESPACE + ".EntityContainer"]
    memds.InMemoryEntityContainer(container)
    with container["ProductCategories"].open() as collection:
        for row in categories:
            entity = collection.new_entity()
            _fill(entity, row, CATEGORY_PROPERTIES)
            collection.insert_entity(entity)
    with container["Products"].open() as collection:
        for row in products:
            entity = collection.new_entity()
            _fill(entity, row, PRODUCT_PROPERTIES)
            collection.insert_entity(entity)
    with container["Products"].open() as collection:
        for row in products:
            entity = collection[row["ProductId"]]
            with entity["Category"].open() as navigation:
                with container["ProductCategories"].open() as targets:
                    navigation.replace(targets[row["CategoryName"]])

    def make_service(origin):
        server = Server(serviceRoot=origin + "/odata/")
        server.set_model(doc)
        if args.page_size:
            server.topmax = args.page_size
        return server

    app = PictureAndStatsApp(
        [p["ProductId"] for p in products], args.picture_delay_ms, args.pictures
    )
    serve(app, args.port, make_service, accepted_authorizations(args))


if __name__ == "__main__":
    main()
