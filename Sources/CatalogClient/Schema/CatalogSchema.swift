/// Where a catalog keeps its products and which of their properties give each part of a
/// ``Product``: the mapping that lets one client read any OData catalog.
///
/// SAP's OData SDK generates typed classes from a service's `$metadata`; this value is the small
/// part of that a product search needs. It is usually found from `$metadata` by
/// ``CatalogProvider/catalogSchema(entitySet:categoryProperty:gtinProperty:)``, which recognizes
/// the shapes of SAP's ESPM and GWSAMPLE_BASIC samples, Northwind and S/4HANA's product API, and
/// can be written by hand (or read from a JSON file with the same keys) for any other catalog,
/// then checked with ``CatalogProvider/checked(_:)``.
///
/// Only ``entitySet``, ``key`` and ``category`` are required. The category is a property of the
/// product (`CategoryName`) or a path through a single-valued navigation property
/// (`Category/CategoryName`), which OData v2 and v4 both filter on as written. With a ``gtin``
/// property, a product can also be looked up by the barcode on its pack
/// (``productsQuery(withGTIN:)``).
public struct CatalogSchema: Sendable, Hashable, Codable {
  /// The entity set holding the products, for example `Products` or `ProductSet`.
  public var entitySet: String
  /// The key property, for example `ProductId`; a single property (composite keys are refused).
  public var key: String
  /// The key's EDM type, for example `Edm.String` or `Edm.Int32`.
  public var keyType: String
  /// The category: a property (`CategoryName`) or a navigation path (`Category/CategoryName`).
  public var category: ODataPath
  /// The category's EDM type: `Edm.String` or an integer type, whose literals category names are
  /// written as.
  public var categoryType: String
  /// The entity set that lists the categories, when the catalog has one (for example
  /// `ProductCategories`); ``categorySetProperty`` names its category property.
  public var categorySet: String?
  /// The property of ``categorySet`` that holds the category, for example `CategoryName`.
  public var categorySetProperty: String?
  /// The property with the product's name.
  public var name: String?
  /// The property with a one-line description.
  public var description: String?
  /// The property with the price (a decimal, floating-point or integer type).
  public var price: String?
  /// The property with the ISO 4217 currency code of the price.
  public var currency: String?
  /// The property with the picture's URL (absolute, or relative to the service), or
  /// ``mediaResource`` when the product entity itself is the picture (`…/$value`).
  public var picture: String?
  /// The property with the product's GTIN (EAN, UPC), such as S/4HANA's `ProductStandardID`:
  /// an `Edm.String`, `Edm.Int64` or `Edm.Decimal` property that barcodes are looked up in.
  public var gtin: String?
  /// The GTIN's EDM type: `Edm.String` (the default), `Edm.Int64` or `Edm.Decimal`, whose
  /// literals a GTIN is written as.
  public var gtinType: String

  /// The ``picture`` value that means the product's media resource, `EntitySet(key)/$value`.
  public static let mediaResource = "$value"

  /// The shape of SAP's ESPM sample (and of the bundled catalog and local catalog files), which
  /// has no GTIN.
  ///
  /// The bundled catalog and local catalog files also keep a GTIN in `GTIN`: the schema their
  /// provider's ``CatalogProvider/catalogSchema(entitySet:categoryProperty:gtinProperty:)``
  /// finds is this one with ``gtin`` set to it.
  public static let espm = CatalogSchema(
    entitySet: "Products", key: "ProductId", category: "CategoryName",
    categorySet: "ProductCategories", categorySetProperty: "CategoryName", name: "Name",
    description: "ShortDescription", price: "Price", currency: "CurrencyCode",
    picture: "PictureUrl")

  /// Creates a schema.
  ///
  /// - Parameters:
  ///   - entitySet: The entity set of the products.
  ///   - key: The key property.
  ///   - keyType: The key's EDM type; `Edm.String` by default.
  ///   - category: The category property or navigation path.
  ///   - categoryType: The category's EDM type; `Edm.String` by default.
  ///   - categorySet: The entity set listing the categories, if any.
  ///   - categorySetProperty: The category property of that set.
  ///   - name: The name property.
  ///   - description: The description property.
  ///   - price: The price property.
  ///   - currency: The currency property.
  ///   - picture: The picture property, or ``mediaResource``.
  ///   - gtin: The GTIN property.
  ///   - gtinType: The GTIN's EDM type; `Edm.String` by default.
  public init(
    entitySet: String, key: String, keyType: String = "Edm.String", category: ODataPath,
    categoryType: String = "Edm.String", categorySet: String? = nil,
    categorySetProperty: String? = nil, name: String? = nil, description: String? = nil,
    price: String? = nil, currency: String? = nil, picture: String? = nil, gtin: String? = nil,
    gtinType: String = "Edm.String"
  ) {
    self.entitySet = entitySet
    self.key = key
    self.keyType = keyType
    self.category = category
    self.categoryType = categoryType
    self.categorySet = categorySet
    self.categorySetProperty = categorySetProperty
    self.name = name
    self.description = description
    self.price = price
    self.currency = currency
    self.picture = picture
    self.gtin = gtin
    self.gtinType = gtinType
  }

  private enum CodingKeys: String, CodingKey {
    case entitySet, key, keyType, category, categoryType, categorySet, categorySetProperty
    case name, description, price, currency, picture, gtin, gtinType
  }

  /// Decodes a schema from JSON with the property names as keys; `keyType`, `categoryType` and
  /// `gtinType` default to `Edm.String` and every other key but `entitySet`, `key` and
  /// `category` may be absent.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a required key is missing or a value is not a string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    entitySet = try container.decode(String.self, forKey: .entitySet)
    key = try container.decode(String.self, forKey: .key)
    keyType = try container.decodeIfPresent(String.self, forKey: .keyType) ?? "Edm.String"
    category = ODataPath(try container.decode(String.self, forKey: .category))
    categoryType =
      try container.decodeIfPresent(String.self, forKey: .categoryType) ?? "Edm.String"
    categorySet = try container.decodeIfPresent(String.self, forKey: .categorySet)
    categorySetProperty = try container.decodeIfPresent(
      String.self, forKey: .categorySetProperty)
    name = try container.decodeIfPresent(String.self, forKey: .name)
    description = try container.decodeIfPresent(String.self, forKey: .description)
    price = try container.decodeIfPresent(String.self, forKey: .price)
    currency = try container.decodeIfPresent(String.self, forKey: .currency)
    picture = try container.decodeIfPresent(String.self, forKey: .picture)
    gtin = try container.decodeIfPresent(String.self, forKey: .gtin)
    gtinType = try container.decodeIfPresent(String.self, forKey: .gtinType) ?? "Edm.String"
  }

  /// Encodes the schema with the keys ``init(from:)`` reads; absent properties are left out, and
  /// `gtinType` is written only with a `gtin`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(entitySet, forKey: .entitySet)
    try container.encode(key, forKey: .key)
    try container.encode(keyType, forKey: .keyType)
    try container.encode(category.description, forKey: .category)
    try container.encode(categoryType, forKey: .categoryType)
    try container.encodeIfPresent(categorySet, forKey: .categorySet)
    try container.encodeIfPresent(categorySetProperty, forKey: .categorySetProperty)
    try container.encodeIfPresent(name, forKey: .name)
    try container.encodeIfPresent(description, forKey: .description)
    try container.encodeIfPresent(price, forKey: .price)
    try container.encodeIfPresent(currency, forKey: .currency)
    try container.encodeIfPresent(picture, forKey: .picture)
    if let gtin {
      try container.encode(gtin, forKey: .gtin)
      try container.encode(gtinType, forKey: .gtinType)
    }
  }
}
