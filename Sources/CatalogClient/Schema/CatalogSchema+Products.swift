import Foundation

extension CatalogSchema {
  /// The query for the products of one category: filtered on the category, selecting the key
  /// and the schema's properties, ordered by the key.
  ///
  /// - Parameter category: The category; always written as one literal of ``categoryType``.
  /// - Returns: The query, for example
  ///   `ProductSet?$filter=Category eq 'Notebooks'&$select=ProductID,Name,…&$orderby=ProductID`.
  /// - Throws: ``CatalogError/Code/invalidArgument`` when the category is not a whole number
  ///   and the category type is an integer type.
  public func productsQuery(inCategory category: String) throws(CatalogError) -> ODataQuery {
    var query = ODataQuery(entitySet: entitySet)
      .filter(
        ODataExpression(.compare(.property(self.category), .equal, .literal(try literal(category))))
      )
      .orderBy(ODataOrder(.property(ODataPath(key)), descending: false))
    query.select = selectedProperties.map { ODataPath($0) }
    return query
  }

  /// The query for the products with one GTIN: filtered on the ``gtin`` property, selecting
  /// what ``productsQuery(inCategory:)`` selects and the GTIN, ordered by the key.
  ///
  /// A catalog may store a GTIN-13 as 13 digits or as its 14-digit form, so a string property
  /// is compared with the 14-digit ``GTIN/digits`` and each 13-, 12- or 8-digit form that drops
  /// only leading zeros; a numeric property (`Edm.Int64`, `Edm.Decimal`) is compared with the
  /// number once. Each form is one literal of the property's type, never syntax.
  ///
  /// - Parameter gtin: The GTIN, for example read from a barcode.
  /// - Returns: The query, for example
  ///   `Products?$filter=GTIN eq '04006381333931' or GTIN eq '4006381333931'&$select=…,GTIN&…`.
  /// - Throws: ``CatalogError/Code/invalidArgument`` when the schema has no ``gtin`` property,
  ///   ``CatalogError/Code/invalidSchema`` when ``gtinType`` is not `Edm.String`, `Edm.Int64`
  ///   or `Edm.Decimal`.
  public func productsQuery(withGTIN gtin: GTIN) throws(CatalogError) -> ODataQuery {
    guard let property = self.gtin else {
      throw CatalogError(
        .invalidArgument,
        "the catalog schema of \(entitySet) has no GTIN property to look \(gtin) up in; name "
          + "it (for example EAN or ProductStandardID)")
    }
    let path = ODataPath(property)
    let values: [ODataValue]
    switch gtinType {
    case "Edm.String":
      values = gtin.storedForms.map(ODataValue.string)
    case "Edm.Int64", "Edm.Decimal":
      values = [.int64(gtin.number)]
    default:
      throw CatalogError(
        .invalidSchema,
        "the GTIN property '\(property)' is \(gtinType); it must be Edm.Decimal or Edm.Int64 or "
          + "Edm.String")
    }
    let comparisons = values.map { value in
      ODataExpression(.compare(.property(path), .equal, .literal(value)))
    }
    var query = ODataQuery(entitySet: entitySet)
    if let first = comparisons.first {
      query = query.filter(comparisons.dropFirst().reduce(first, ||))
    }
    query = query.orderBy(ODataOrder(.property(ODataPath(key)), descending: false))
    query.select = (selectedProperties + (selectedProperties.contains(property) ? [] : [property]))
      .map { ODataPath($0) }
    return query
  }

  /// The GTIN a product's stored value names, or `nil` when it names none.
  ///
  /// A string must be a whole GTIN; a number (as the JSON of an `Edm.Int64` or `Edm.Decimal`
  /// property writes it) has lost its leading zeros and may have a fraction of zeros.
  func storedGTIN(_ value: String) -> GTIN? {
    guard gtinType != "Edm.String" else {
      return GTIN(value)
    }
    var digits = Substring(value)
    if let point = digits.firstIndex(of: ".") {
      guard digits[digits.index(after: point)...].allSatisfy({ $0 == "0" }) else { return nil }
      digits = digits[..<point]
    }
    guard !digits.isEmpty, digits.count <= 14 else { return nil }
    return GTIN(String(repeating: "0", count: 14 - digits.count) + digits)
  }

  /// The query for every product, selecting the key, the category and the picture.
  var picturesQuery: ODataQuery {
    var query = ODataQuery(entitySet: entitySet)
      .orderBy(ODataOrder(.property(ODataPath(key)), descending: false))
    query.select =
      ([key] + (category.segments.count == 1 ? [category.description] : [])
      + [picture].compactMap { $0 }.filter { $0 != Self.mediaResource }).map { ODataPath($0) }
    return query
  }

  /// The properties a products query selects, in the order ESPM's query has always used.
  private var selectedProperties: [String] {
    var names = [key]
    names += [name].compactMap { $0 }
    if category.segments.count == 1 {
      names.append(category.description)
    }
    names += [price, currency, picture, description].compactMap { $0 }
    return names.filter { $0 != Self.mediaResource }.reduce(into: []) { unique, name in
      if !unique.contains(name) { unique.append(name) }
    }
  }

  /// A category name as a literal of the category's type.
  func literal(_ category: String) throws(CatalogError) -> ODataValue {
    switch categoryType {
    case "Edm.String":
      return .string(category)
    case "Edm.Int64":
      guard let value = Int64(category) else { throw notWhole(category) }
      return .int64(value)
    default:
      guard let value = Int32(category) else { throw notWhole(category) }
      return .int32(value)
    }
  }

  private func notWhole(_ category: String) -> CatalogError {
    CatalogError(
      .invalidArgument,
      "the category '\(category)' is not a whole number, and \(self.category) is \(categoryType)")
  }

  /// The normalized product of an entity the products query returned.
  ///
  /// - Parameters:
  ///   - entity: The entity.
  ///   - category: The category it was listed under, used when the category is not a property
  ///     of the entity.
  ///   - resolve: Turns the picture reference into the URL to report.
  /// - Returns: The product.
  /// - Throws: ``CatalogError/Code/decodingFailed`` when the key is missing.
  func product(
    from entity: ODataEntity, category: String?,
    picture resolve: (PictureReference) throws(CatalogError) -> String
  ) throws(CatalogError) -> Product {
    guard let id = Self.text(entity[key]) else {
      throw CatalogError(.decodingFailed, "a product of \(entitySet) has no key '\(key)'")
    }
    var product = Product(productId: id)
    product.name = name.flatMap(entity.string)
    product.shortDescription = description.flatMap(entity.string)
    product.categoryName =
      (self.category.segments.count == 1 ? Self.text(entity[self.category.description]) : nil)
      ?? category
    product.price = price.flatMap(entity.decimal)
    product.currencyCode = currency.flatMap(entity.string)
    product.gtin = gtin.flatMap { Self.text(entity[$0]) }
    if picture == Self.mediaResource {
      product.pictureUrl = try resolve(.mediaResource(try keyValue(entity[key])))
    } else if let reference = picture.flatMap(entity.string), !reference.isEmpty {
      product.pictureUrl = try resolve(.url(reference))
    }
    return product
  }

  /// The key as a literal value, for the media resource's URL.
  private func keyValue(_ value: ODataJSON?) throws(CatalogError) -> ODataValue {
    switch (value, keyType) {
    case (.string(let text), "Edm.String"):
      return .string(text)
    case (.number(let text), "Edm.Int64"), (.string(let text), "Edm.Int64"):
      guard let number = Int64(text) else { throw badKey() }
      return .int64(number)
    case (.number(let text), _), (.string(let text), _):
      guard Self.categoryTypes.contains(keyType), let number = Int32(text) else { throw badKey() }
      return .int32(number)
    default:
      throw badKey()
    }
  }

  private func badKey() -> CatalogError {
    CatalogError(
      .decodingFailed, "a key of \(entitySet) is not a \(keyType) the media resource URL can use")
  }

  /// A string, or a number's digits.
  static func text(_ value: ODataJSON?) -> String? {
    switch value {
    case .string(let text), .number(let text):
      return text
    default:
      return nil
    }
  }
}

/// What a product's picture is, before it becomes a URL.
enum PictureReference {
  /// The picture property's value: a URL, absolute or relative to the service.
  case url(String)
  /// The product's media resource (`EntitySet(key)/$value`), with the key.
  case mediaResource(ODataValue)
}
