public import Foundation

/// A product of SAP's ESPM sample service (`Products` entity set), and its typed property paths.
///
/// The static members are the query paths, so the SAPOData idiom
/// `DataQuery().filter(Product.categoryName == category)` reads the same here:
/// `ODataQuery(entitySet: Product.entitySet).filter(Product.categoryName == category)`.
/// Every stored property except the key is optional because `$select` may omit it.
public struct Product: Sendable, Hashable, Codable {
  /// The entity set holding products.
  public static let entitySet = "Products"

  /// The key, for example `HT-1000`.
  public var productId: String
  /// The product name.
  public var name: String?
  /// A one-line description.
  public var shortDescription: String?
  /// The category, for example `Notebooks`.
  public var categoryName: String?
  /// The main category, for example `Computer Systems`.
  public var mainCategoryName: String?
  /// The price (`Edm.Decimal`).
  public var price: Decimal?
  /// The ISO 4217 currency of the price.
  public var currencyCode: String?
  /// The picture path, relative to the service host, for example `/imgs/HT-1000.jpg`.
  public var pictureUrl: String?
  /// The weight (`Edm.Decimal`).
  public var weight: Decimal?
  /// The unit of the weight, for example `KG`.
  public var weightUnit: String?
  /// Units in stock (`Edm.Int64`).
  public var stockQuantity: Int64?
  /// The last change (v2 `Edm.DateTime`, v4 `Edm.DateTimeOffset`), in UTC.
  public var updatedTimestamp: Date?
  /// The GTIN (EAN, UPC) as the catalog stores it, for example `2012345010000`.
  ///
  /// A numeric GTIN property gives its digits without leading zeros; a catalog file keeps it as
  /// `GTIN`. Of the product listings, only
  /// ``CatalogProvider/products(withGTIN:schema:maximumPages:)`` asks for it.
  public var gtin: String?

  /// The path of ``productId``.
  public static let productId = ODataProperty<String>("ProductId")
  /// The path of ``name``.
  public static let name = ODataProperty<String>("Name")
  /// The path of ``shortDescription``.
  public static let shortDescription = ODataProperty<String>("ShortDescription")
  /// The path of ``categoryName``.
  public static let categoryName = ODataProperty<String>("CategoryName")
  /// The path of ``mainCategoryName``.
  public static let mainCategoryName = ODataProperty<String>("MainCategoryName")
  /// The path of ``price``.
  public static let price = ODataProperty<Decimal>("Price")
  /// The path of ``currencyCode``.
  public static let currencyCode = ODataProperty<String>("CurrencyCode")
  /// The path of ``pictureUrl``.
  public static let pictureUrl = ODataProperty<String>("PictureUrl")
  /// The path of ``weight``.
  public static let weight = ODataProperty<Decimal>("Weight")
  /// The path of ``weightUnit``.
  public static let weightUnit = ODataProperty<String>("WeightUnit")
  /// The path of ``stockQuantity``.
  public static let stockQuantity = ODataProperty<Int64>("StockQuantity")
  /// The path of ``updatedTimestamp``.
  public static let updatedTimestamp = ODataProperty<Date>("UpdatedTimestamp")
  /// The navigation property to the product's ``ProductCategory``.
  public static let category: ODataPath = "Category"

  /// Creates a product.
  ///
  /// - Parameters:
  ///   - productId: The key.
  ///   - name: The name.
  ///   - categoryName: The category.
  ///   - price: The price.
  ///   - currencyCode: The currency of the price.
  ///   - pictureUrl: The picture path.
  public init(
    productId: String, name: String? = nil, categoryName: String? = nil, price: Decimal? = nil,
    currencyCode: String? = nil, pictureUrl: String? = nil
  ) {
    self.productId = productId
    self.name = name
    self.categoryName = categoryName
    self.price = price
    self.currencyCode = currencyCode
    self.pictureUrl = pictureUrl
  }

  private enum CodingKeys: String, CodingKey {
    case productId = "ProductId"
    case name = "Name"
    case shortDescription = "ShortDescription"
    case categoryName = "CategoryName"
    case mainCategoryName = "MainCategoryName"
    case price = "Price"
    case currencyCode = "CurrencyCode"
    case pictureUrl = "PictureUrl"
    case weight = "Weight"
    case weightUnit = "WeightUnit"
    case stockQuantity = "StockQuantity"
    case updatedTimestamp = "UpdatedTimestamp"
    case gtin = "GTIN"
  }

  /// Decodes a product from v2 or v4 JSON (decimals and Int64 as strings or numbers).
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a property has the wrong form.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    productId = try container.decode(String.self, forKey: .productId)
    name = try container.decodeIfPresent(String.self, forKey: .name)
    shortDescription = try container.decodeIfPresent(String.self, forKey: .shortDescription)
    categoryName = try container.decodeIfPresent(String.self, forKey: .categoryName)
    mainCategoryName = try container.decodeIfPresent(String.self, forKey: .mainCategoryName)
    price = try container.decodeODataDecimal(forKey: .price)
    currencyCode = try container.decodeIfPresent(String.self, forKey: .currencyCode)
    pictureUrl = try container.decodeIfPresent(String.self, forKey: .pictureUrl)
    weight = try container.decodeODataDecimal(forKey: .weight)
    weightUnit = try container.decodeIfPresent(String.self, forKey: .weightUnit)
    stockQuantity = try container.decodeODataInt64(forKey: .stockQuantity)
    updatedTimestamp = try container.decodeODataDate(forKey: .updatedTimestamp)
    gtin = try container.decodeIfPresent(String.self, forKey: .gtin)
  }

  /// Encodes the product with its OData property names; decimals as strings, dates as ISO 8601.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(productId, forKey: .productId)
    try container.encodeIfPresent(name, forKey: .name)
    try container.encodeIfPresent(shortDescription, forKey: .shortDescription)
    try container.encodeIfPresent(categoryName, forKey: .categoryName)
    try container.encodeIfPresent(mainCategoryName, forKey: .mainCategoryName)
    try container.encodeIfPresent(price?.description, forKey: .price)
    try container.encodeIfPresent(currencyCode, forKey: .currencyCode)
    try container.encodeIfPresent(pictureUrl, forKey: .pictureUrl)
    try container.encodeIfPresent(weight?.description, forKey: .weight)
    try container.encodeIfPresent(weightUnit, forKey: .weightUnit)
    try container.encodeIfPresent(stockQuantity, forKey: .stockQuantity)
    try container.encodeIfPresent(
      updatedTimestamp.map { ODataValue.iso8601($0, withZone: true) }, forKey: .updatedTimestamp)
    try container.encodeIfPresent(gtin, forKey: .gtin)
  }
}

/// A product category of ESPM (`ProductCategories` entity set), and its typed property paths.
public struct ProductCategory: Sendable, Hashable, Codable {
  /// The entity set holding categories.
  public static let entitySet = "ProductCategories"

  /// The key, for example `Notebooks`.
  public var categoryName: String
  /// The main category, for example `Computer Systems`.
  public var mainCategoryName: String?
  /// How many products the category has (`Edm.Int64`).
  public var numberOfProducts: Int64?

  /// The path of ``categoryName``.
  public static let categoryName = ODataProperty<String>("CategoryName")
  /// The path of ``mainCategoryName``.
  public static let mainCategoryName = ODataProperty<String>("MainCategoryName")
  /// The path of ``numberOfProducts``.
  public static let numberOfProducts = ODataProperty<Int64>("NumberOfProducts")
  /// The navigation property to the category's products.
  public static let products: ODataPath = "Products"

  private enum CodingKeys: String, CodingKey {
    case categoryName = "CategoryName"
    case mainCategoryName = "MainCategoryName"
    case numberOfProducts = "NumberOfProducts"
  }

  /// Creates a category.
  ///
  /// - Parameters:
  ///   - categoryName: The key.
  ///   - mainCategoryName: The main category.
  ///   - numberOfProducts: How many products it has.
  public init(categoryName: String, mainCategoryName: String? = nil, numberOfProducts: Int64? = nil)
  {
    self.categoryName = categoryName
    self.mainCategoryName = mainCategoryName
    self.numberOfProducts = numberOfProducts
  }

  /// Decodes a category from v2 or v4 JSON.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a property has the wrong form.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    categoryName = try container.decode(String.self, forKey: .categoryName)
    mainCategoryName = try container.decodeIfPresent(String.self, forKey: .mainCategoryName)
    numberOfProducts = try container.decodeODataInt64(forKey: .numberOfProducts)
  }
}

extension KeyedDecodingContainer {
  /// A decimal sent as a string (v2) or as a number (v4), read from its exact digits.
  fileprivate func decodeODataDecimal(forKey key: Key) throws -> Decimal? {
    if let text = try? decodeIfPresent(String.self, forKey: key) {
      guard let value = ODataScalars.decimal(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: self, debugDescription: "'\(text)' is not a decimal")
      }
      return value
    }
    return try decodeIfPresent(Decimal.self, forKey: key)
  }

  fileprivate func decodeODataInt64(forKey key: Key) throws -> Int64? {
    if let text = try? decodeIfPresent(String.self, forKey: key) {
      guard let value = Int64(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: self, debugDescription: "'\(text)' is not an Int64")
      }
      return value
    }
    return try decodeIfPresent(Int64.self, forKey: key)
  }

  fileprivate func decodeODataDate(forKey key: Key) throws -> Date? {
    guard let text = try decodeIfPresent(String.self, forKey: key) else {
      return nil
    }
    guard let date = ODataScalars.date(text) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self, debugDescription: "'\(text)' is not an OData date")
    }
    return date
  }
}
