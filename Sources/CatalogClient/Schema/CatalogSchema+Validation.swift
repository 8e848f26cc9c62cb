extension CatalogSchema {
  /// The EDM types a category can have: its names are written as literals of that type.
  static let categoryTypes: Set<String> = [
    "Edm.String", "Edm.Byte", "Edm.SByte", "Edm.Int16", "Edm.Int32", "Edm.Int64",
  ]
  /// The EDM types a price can have.
  static let priceTypes: Set<String> = [
    "Edm.Decimal", "Edm.Double", "Edm.Single", "Edm.Byte", "Edm.SByte", "Edm.Int16", "Edm.Int32",
    "Edm.Int64",
  ]
  /// The EDM types a GTIN can have: digits as text, or the number they write.
  static let gtinTypes: Set<String> = ["Edm.String", "Edm.Int64", "Edm.Decimal"]

  /// The schema checked against a service's `$metadata`, with the key's, category's and GTIN's
  /// types and the category set filled in from it.
  ///
  /// - Parameter metadata: The service's metadata.
  /// - Returns: The schema as the service types it.
  /// - Throws: ``CatalogError/Code/invalidSchema`` naming what is missing or mistyped and what
  ///   the service has instead.
  package func validated(against metadata: ServiceMetadata) throws(CatalogError) -> CatalogSchema {
    let set = try Self.entitySet(entitySet, in: metadata)
    let type = try Self.entityType(of: set, in: metadata)
    var schema = self
    schema.keyType = try Self.property(key, of: type, set: set, role: "key").type
    let (categoryProperty, target) = try categoryEnd(from: type, set: set, in: metadata)
    guard Self.categoryTypes.contains(categoryProperty.type) else {
      throw CatalogError(
        .invalidSchema,
        "the category '\(category)' is \(categoryProperty.type); it must be Edm.String or an "
          + "integer type")
    }
    schema.categoryType = categoryProperty.type
    try schema.checkCategorySet(target: target, in: metadata)
    for (role, name, types) in optionalRoles {
      guard let name, !(role == "picture" && name == Self.mediaResource) else { continue }
      let property = try Self.property(name, of: type, set: set, role: role)
      guard types.contains(property.type) else {
        throw CatalogError(
          .invalidSchema,
          "the \(role) property '\(name)' of \(set.name) is \(property.type); it must be "
            + types.sorted().joined(separator: " or "))
      }
      if role == "GTIN" {
        schema.gtinType = property.type
      }
    }
    if picture == Self.mediaResource && !type.hasStream {
      throw CatalogError(
        .invalidSchema,
        "the picture is the media resource ($value), but \(type.qualifiedName) has no stream "
          + "(HasStream is not true)")
    }
    return schema
  }

  /// The optional properties with the role they play and the types they may have.
  private var optionalRoles: [(String, String?, Set<String>)] {
    [
      ("name", name, ["Edm.String"]), ("description", description, ["Edm.String"]),
      ("price", price, Self.priceTypes), ("currency", currency, ["Edm.String"]),
      ("picture", picture, ["Edm.String"]), ("GTIN", gtin, Self.gtinTypes),
    ]
  }

  /// Follows the category path: single-valued navigation properties, then a property.
  ///
  /// - Returns: The category property and, for a navigation path, the entity type it is on.
  private func categoryEnd(
    from type: ServiceMetadata.EntityType, set: ServiceMetadata.EntitySet,
    in metadata: ServiceMetadata
  ) throws(CatalogError) -> (ServiceMetadata.Property, ServiceMetadata.EntityType?) {
    guard let last = category.segments.last, !category.segments.contains(where: \.isEmpty)
    else {
      throw CatalogError(.invalidSchema, "the category path '\(category)' is empty")
    }
    var current = type
    var navigated = false
    for segment in category.segments.dropLast() {
      guard let navigation = current.navigationProperty(named: segment) else {
        let names = current.navigationProperties.map(\.name)
        throw CatalogError(
          .invalidSchema,
          "\(current.qualifiedName) has no navigation property '\(segment)' (in the category "
            + "path '\(category)'); "
            + (names.isEmpty ? "it has none" : "it has \(Self.list(names))"))
      }
      guard !navigation.isCollection else {
        throw CatalogError(
          .invalidSchema,
          "'\(segment)' of \(current.qualifiedName) leads to many entities; a category path must "
            + "lead to one value")
      }
      guard let next = metadata.entityTypes[navigation.targetType] else {
        throw CatalogError(
          .invalidSchema, "'\(segment)' leads to \(navigation.targetType), which is not defined")
      }
      current = next
      navigated = true
    }
    let property = try Self.property(
      last, of: current, set: navigated ? nil : set, role: "category")
    return (property, navigated ? current : nil)
  }

  /// Checks the category set, or finds it as the set of the navigation target.
  private mutating func checkCategorySet(
    target: ServiceMetadata.EntityType?, in metadata: ServiceMetadata
  ) throws(CatalogError) {
    if categorySet == nil, let target, let set = metadata.entitySet(ofType: target.qualifiedName) {
      categorySet = set.name
      categorySetProperty = category.segments.last
    }
    guard let setName = categorySet else {
      categorySetProperty = nil
      return
    }
    let set = try Self.entitySet(setName, in: metadata)
    let type = try Self.entityType(of: set, in: metadata)
    let propertyName = categorySetProperty ?? category.segments.last ?? ""
    let property = try Self.property(propertyName, of: type, set: set, role: "category set")
    guard property.type == categoryType else {
      throw CatalogError(
        .invalidSchema,
        "'\(propertyName)' of \(setName) is \(property.type), but the products' category is "
          + categoryType)
    }
    categorySetProperty = propertyName
  }

  static func entitySet(_ name: String, in metadata: ServiceMetadata) throws(CatalogError)
    -> ServiceMetadata.EntitySet
  {
    guard let set = metadata.entitySet(named: name) else {
      let names = metadata.entitySets.map(\.name)
      throw CatalogError(
        .invalidSchema,
        "the service has no entity set '\(name)'; "
          + (names.isEmpty ? "it has none" : "it has \(list(names))"))
    }
    return set
  }

  static func entityType(of set: ServiceMetadata.EntitySet, in metadata: ServiceMetadata)
    throws(CatalogError) -> ServiceMetadata.EntityType
  {
    guard let type = metadata.entityType(of: set) else {
      throw CatalogError(
        .invalidSchema, "the entity set \(set.name) has the undefined type \(set.entityType)")
    }
    return type
  }

  static func property(
    _ name: String, of type: ServiceMetadata.EntityType, set: ServiceMetadata.EntitySet?,
    role: String
  ) throws(CatalogError) -> ServiceMetadata.Property {
    guard let property = type.property(named: name) else {
      let owner = set.map { "\(type.qualifiedName) (entity set \($0.name))" } ?? type.qualifiedName
      throw CatalogError(
        .invalidSchema,
        "\(owner) has no property '\(name)' for the \(role); it has "
          + list(type.properties.map(\.name)))
    }
    return property
  }

  /// Names for a message, at most 24 of them.
  static func list(_ names: [String]) -> String {
    let shown = names.prefix(24).joined(separator: ", ")
    return names.count > 24 ? shown + " and \(names.count - 24) more" : shown
  }
}
