"""OData v4 test server: odatapy's in-memory reference service over the catalog JSON.

Prints `READY <port>` once listening. Service root: http://127.0.0.1:<port>/odata/
"""

from odatapy.data import Entity, ValueType
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider,
    CsdlEntityContainer,
    CsdlEntitySet,
    CsdlEntityType,
    CsdlNavigationProperty,
    CsdlNavigationPropertyBinding,
    CsdlProperty,
    CsdlPropertyRef,
    CsdlSchema,
)
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor

from catalog_model import (
    CATEGORY_PROPERTIES,
    NAMESPACE,
    PRODUCT_PROPERTIES,
    load_catalog,
    python_value,
)
from wsgi_support import PictureAndStatsApp, accepted_authorizations, common_arguments, serve


def _property(name, edm_type, key):
    nullable = name != key
    if edm_type == "Edm.Decimal":
        return CsdlProperty(name=name, type=edm_type, nullable=nullable, precision=12, scale=3)
    return CsdlProperty(name=name, type=edm_type, nullable=nullable)


class CatalogProvider(CsdlAbstractEdmProvider):
    def get_schemas(self):
        product = CsdlEntityType(
            name="Product",
            key=[CsdlPropertyRef(name="ProductId")],
            properties=[_property(n, t, "ProductId") for n, t in PRODUCT_PROPERTIES],
            navigation_properties=[
                CsdlNavigationProperty(
                    name="Category", type=NAMESPACE + ".ProductCategory", partner="Products"
                )
            ],
        )
        category = CsdlEntityType(
            name="ProductCategory",
            key=[CsdlPropertyRef(name="CategoryName")],
            properties=[_property(n, t, "CategoryName") for n, t in CATEGORY_PROPERTIES],
            navigation_properties=[
                CsdlNavigationProperty(
                    name="Products",
                    type=NAMESPACE + ".Product",
                    collection=True,
                    partner="Category",
                )
            ],
        )
        container = CsdlEntityContainer(
            name="EntityContainer",
            entity_sets=[
                CsdlEntitySet(
                    name="Products",
                    type=NAMESPACE + ".Product",
                    navigation_property_bindings=[
                        CsdlNavigationPropertyBinding(path="Category", target="ProductCategories")
                    ],
                ),
                CsdlEntitySet(
                    name="ProductCategories",
                    type=NAMESPACE + ".ProductCategory",
                    navigation_property_bindings=[
                        CsdlNavigationPropertyBinding(path="Products", target="Products")
                    ],
                ),
            ],
        )
        return [
            CsdlSchema(
                namespace=NAMESPACE,
                entity_types=[product, category],
                entity_container=container,
            )
        ]


def _entity(row, properties):
    entity = Entity()
    for name, edm_type in properties:
        entity.set_property(name, python_value(edm_type, row[name]), ValueType.PRIMITIVE, edm_type)
    return entity


def main():
    args = common_arguments(__doc__).parse_args()
    categories, products = load_catalog(args.catalog)
    store = InMemoryDataStore()
    category_entities = {c["CategoryName"]: _entity(c, CATEGORY_PROPERTIES) for c in categories}
    product_entities = [_entity(p, PRODUCT_PROPERTIES) for p in products]
    store.set_entities("ProductCategories", list(category_entities.values()))
    store.set_entities("Products", product_entities)
    for row, entity in zip(products, product_entities):
        target = category_entities[row["CategoryName"]]
        store.set_relation("Products", repr(row["ProductId"]), "Category", [target])
        store.add_relation("ProductCategories", repr(row["CategoryName"]), "Products", entity)

    def make_service(_origin):
        # odatapy derives the service root from each request, so the origin is not needed.
        odata = OData.new_instance()
        handler = odata.create_handler(odata.create_service_metadata(CatalogProvider()))
        handler.register(InMemoryProcessor(store, page_size=args.page_size or None))
        return ODataWSGIApp(handler, mount_path="/odata")

    app = PictureAndStatsApp(
        [p["ProductId"] for p in products], args.picture_delay_ms, args.pictures
    )
    serve(app, args.port, make_service, accepted_authorizations(args))


if __name__ == "__main__":
    main()
