"""OData v4 test server: odatapy's in-memory reference service over the catalog JSON, in one of
the shapes.

Prints `READY <port> <mount path>` once listening. Service root: http://127.0.0.1:<port><mount>,
for the default shape `espm` http://127.0.0.1:<port>/odata/ (see catalog_shapes.py).
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

from catalog_model import load_catalog
from catalog_shapes import SHAPES, Seed, entity_rows, links
from wsgi_support import (
    accepted_authorizations,
    common_arguments,
    media_resources,
    serve,
    shape_app,
    shape_service,
)


def _property(prop):
    facets = {}
    if prop.precision is not None:
        facets.update(precision=prop.precision, scale=prop.scale)
    if prop.max_length is not None:
        facets.update(max_length=prop.max_length)
    return CsdlProperty(name=prop.name, type=prop.edm_type, nullable=prop.nullable, **facets)


def _entity_type(shape, entity_type):
    navigations = [
        CsdlNavigationProperty(
            name=end.navigation,
            type=shape.namespace + "." + other.entity_type,
            collection=other.multiplicity == "*",
            partner=other.navigation,
        )
        for end, other, _ in shape.navigations(entity_type.name)
    ]
    return CsdlEntityType(
        name=entity_type.name,
        key=[CsdlPropertyRef(name=entity_type.key)],
        properties=[_property(p) for p in entity_type.properties],
        navigation_properties=navigations,
        has_stream=entity_type.has_stream,
    )


def _entity_set(shape, entity_set):
    bindings = [
        CsdlNavigationPropertyBinding(path=end.navigation, target=other.entity_set)
        for end, other, _ in shape.navigations(entity_set.entity_type)
        if end.entity_set == entity_set.name
    ]
    return CsdlEntitySet(
        name=entity_set.name,
        type=shape.namespace + "." + entity_set.entity_type,
        navigation_property_bindings=bindings,
    )


class ShapeProvider(CsdlAbstractEdmProvider):
    """The CSDL schema of one catalog shape."""

    def __init__(self, shape):
        self.shape = shape

    def get_schemas(self):
        shape = self.shape
        container = CsdlEntityContainer(
            name=shape.container,
            entity_sets=[_entity_set(shape, s) for s in shape.entity_sets],
        )
        return [
            CsdlSchema(
                namespace=shape.namespace,
                entity_types=[_entity_type(shape, t) for t in shape.entity_types],
                entity_container=container,
            )
        ]


def _entity(row, entity_type):
    entity = Entity()
    for prop in entity_type.properties:
        entity.set_property(prop.name, row[prop.name], ValueType.PRIMITIVE, prop.edm_type)
    return entity


def load(shape, seed, media=None, pictures=None):
    """An odatapy in-memory store holding the shape's entity sets and relations, and the media
    entities' pictures from `media` (so payloads announce their content type; the WSGI wrapper
    answers `$value` itself, with the same bytes)."""
    store = InMemoryDataStore()
    entities = {}
    for entity_set in shape.entity_sets:
        entity_type = shape.entity_type(entity_set.entity_type)
        by_key = {}
        for row in entity_rows(shape, entity_set, seed):
            entity = _entity(row, entity_type)
            found = media.media(row[entity_type.key], pictures) if entity_type.has_stream else None
            if found is not None:
                entity.media_content_type, entity.media_content = found
            by_key[row[entity_type.key]] = entity
        store.set_entities(entity_set.name, list(by_key.values()))
        entities[entity_set.name] = by_key
    for relationship in shape.relationships:
        many, one = relationship.many, relationship.one
        for source_key, target_key in links(shape, relationship, seed):
            source = entities[many.entity_set][source_key]
            target = entities[one.entity_set][target_key]
            # odatapy keys its relation table by repr() of the key value.
            store.set_relation(many.entity_set, repr(source_key), many.navigation, [target])
            store.add_relation(one.entity_set, repr(target_key), one.navigation, source)
    return store


def main():
    args = common_arguments(__doc__).parse_args()
    shape = SHAPES[args.shape]
    categories, products = load_catalog(args.catalog)
    media = media_resources(shape, products)
    store = load(shape, Seed(categories, products), media, args.pictures)

    def make_service(_origin):
        # odatapy derives the service root from each request, so the origin is not needed.
        odata = OData.new_instance()
        handler = odata.create_handler(odata.create_service_metadata(ShapeProvider(shape)))
        handler.register(InMemoryProcessor(store, page_size=args.page_size or None))
        return shape_service(shape, ODataWSGIApp(handler, mount_path=shape.mount))

    app = shape_app(products, args, media)
    serve(app, args.port, make_service, accepted_authorizations(args), shape.mount)


if __name__ == "__main__":
    main()
