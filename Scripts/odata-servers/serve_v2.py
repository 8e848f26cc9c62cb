"""OData v2 test server: pyslet's in-memory store over the catalog JSON, in one of the shapes.

Prints `READY <port> <mount path>` once listening. Service root: http://127.0.0.1:<port><mount>,
for the default shape `espm` http://127.0.0.1:<port>/odata/ (see catalog_shapes.py).
pyslet's SQLite store is deliberately not used: it compares decimals as text and rejects `not`.
"""

import datetime
import io
from xml.sax.saxutils import quoteattr

from pyslet.http.params import MediaType
from pyslet.odata2 import core, memds
from pyslet.odata2 import metadata as edmx
from pyslet.odata2.server import Server

from catalog_model import load_catalog
from catalog_shapes import SHAPES, Seed, entity_rows, for_version, links
from wsgi_support import (
    accepted_authorizations,
    common_arguments,
    media_resources,
    serve,
    shape_app,
    shape_service,
)

SAP_NAMESPACE = "http://www.sap.com/Protocols/SAPData"


def _v2_type(edm_type):
    return "Edm.DateTime" if edm_type == "Edm.DateTimeOffset" else edm_type


def _attributes(pairs):
    """` name="value"` for each (name, value), values escaped for XML."""
    return "".join(" %s=%s" % (name, quoteattr(str(value))) for name, value in pairs)


def _sap(pairs):
    return [("sap:" + name, value) for name, value in pairs]


def _property_xml(prop):
    pairs = [
        ("Name", prop.name),
        ("Type", _v2_type(prop.edm_type)),
        ("Nullable", "true" if prop.nullable else "false"),
    ]
    if prop.max_length is not None:
        pairs.append(("MaxLength", prop.max_length))
    if prop.precision is not None:
        pairs += [("Precision", prop.precision), ("Scale", prop.scale)]
    return "<Property%s/>" % _attributes(pairs + _sap(prop.sap))


def _entity_type_xml(shape, entity_type):
    ns = shape.namespace
    pairs = [("Name", entity_type.name)]
    if entity_type.has_stream:
        pairs.append(("m:HasStream", "true"))
    lines = ["<EntityType%s>" % _attributes(pairs + _sap(entity_type.sap))]
    lines.append('<Key><PropertyRef Name=%s/></Key>' % quoteattr(entity_type.key))
    lines += [_property_xml(prop) for prop in entity_type.properties]
    for end, other, relationship in shape.navigations(entity_type.name):
        lines.append(
            "<NavigationProperty%s/>"
            % _attributes([
                ("Name", end.navigation),
                ("Relationship", ns + "." + relationship.association),
                ("FromRole", end.role),
                ("ToRole", other.role),
            ])
        )
    lines.append("</EntityType>")
    return "\n".join(lines)


def _association_xml(shape, relationship):
    ends = [
        "<End%s/>" % _attributes([
            ("Role", end.role),
            ("Type", shape.namespace + "." + end.entity_type),
            ("Multiplicity", end.multiplicity),
        ])
        for end in (relationship.many, relationship.one)
    ]
    return "<Association Name=%s>\n%s\n</Association>" % (
        quoteattr(relationship.association), "\n".join(ends))


def _association_set_xml(shape, relationship):
    ends = [
        "<End%s/>" % _attributes([("Role", end.role), ("EntitySet", end.entity_set)])
        for end in (relationship.many, relationship.one)
    ]
    return "<AssociationSet%s>\n%s\n</AssociationSet>" % (
        _attributes([
            ("Name", relationship.association_set),
            ("Association", shape.namespace + "." + relationship.association),
        ]),
        "\n".join(ends),
    )


def _uses_sap(shape):
    """Whether any sap: attribute appears in `shape`, so the namespace must be declared."""
    types = any(t.sap or any(p.sap for p in t.properties) for t in shape.entity_types)
    return types or any(s.sap for s in shape.entity_sets)


def metadata_xml(shape):
    """The EDMX document of `shape` (pyslet reads it and serves its own rendering)."""
    sap_declaration = ""
    if _uses_sap(shape):
        sap_declaration = "\n  xmlns:sap=%s" % quoteattr(SAP_NAMESPACE)
    container = [
        "<EntitySet%s/>" % _attributes(
            [("Name", s.name), ("EntityType", shape.namespace + "." + s.entity_type)]
            + _sap(s.sap))
        for s in shape.entity_sets
    ]
    container += [_association_set_xml(shape, r) for r in shape.relationships]
    schema = [_entity_type_xml(shape, t) for t in shape.entity_types]
    schema += [_association_xml(shape, r) for r in shape.relationships]
    return """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
  xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"{sap}>
 <edmx:DataServices m:DataServiceVersion="2.0">
  <Schema Namespace={ns} xmlns="http://schemas.microsoft.com/ado/2006/04/edm">
{schema}
   <EntityContainer Name={container_name} m:IsDefaultEntityContainer="true">
{container}
   </EntityContainer>
  </Schema>
 </edmx:DataServices>
</edmx:Edmx>
""".format(
        sap=sap_declaration,
        ns=quoteattr(shape.namespace),
        schema="\n".join(schema),
        container_name=quoteattr(shape.container),
        container="\n".join(container),
    )


def _fill(entity, row):
    for name, value in row.items():
        if isinstance(value, datetime.datetime):
            # Edm.DateTime has no offset; the seed's timestamps are UTC.
            value = value.replace(tzinfo=None)
        entity[name].set_from_value(value)


def _store_media(container, shape, media, pictures):
    """Stores each media entity's picture, so payloads announce its content type (the WSGI
    wrapper answers `$value` itself, with the same bytes)."""
    with container[shape.media_set].open() as collection:
        for key in list(collection.keys()):
            found = media.media(key, pictures)
            if found is not None:
                content_type, body = found
                info = core.StreamInfo(type=MediaType.from_str(content_type), size=len(body))
                collection.update_stream(io.BytesIO(body), key, info)


def load(shape, seed, media=None, pictures=None):
    """Reads the shape's metadata into pyslet and fills its in-memory store from the seed (and
    the media entities' pictures from `media`)."""
    doc = edmx.Document()
    doc.read(src=metadata_xml(shape).encode("utf-8"))
    container = doc.root.DataServices[shape.namespace + "." + shape.container]
    memds.InMemoryEntityContainer(container)
    for entity_set in shape.entity_sets:
        with container[entity_set.name].open() as collection:
            for row in entity_rows(shape, entity_set, seed):
                entity = collection.new_entity()
                _fill(entity, row)
                collection.insert_entity(entity)
    for relationship in shape.relationships:
        many, one = relationship.many, relationship.one
        with container[many.entity_set].open() as sources:
            with container[one.entity_set].open() as targets:
                for source_key, target_key in links(shape, relationship, seed):
                    with sources[source_key][many.navigation].open() as navigation:
                        navigation.replace(targets[target_key])
    if media is not None:
        _store_media(container, shape, media, pictures)
    return doc


def main():
    args = common_arguments(__doc__).parse_args()
    shape = for_version(SHAPES[args.shape], 2)
    categories, products = load_catalog(args.catalog)
    media = media_resources(shape, products)
    doc = load(shape, Seed(categories, products), media, args.pictures)

    def make_service(origin):
        server = Server(serviceRoot=origin + shape.mount)
        server.set_model(doc)
        if args.page_size:
            server.topmax = args.page_size
        return shape_service(shape, server)

    app = shape_app(products, args, media)
    serve(app, args.port, make_service, accepted_authorizations(args), shape.mount)


if __name__ == "__main__":
    main()
