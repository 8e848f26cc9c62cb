extension CatalogSchema {
  /// Product entity set names recognized as such, lower-cased: ESPM, GWSAMPLE_BASIC, S/4HANA.
  private static let productSetNames: Set<String> = ["products", "productset", "a_product"]

  /// Category properties, best first: ESPM, GWSAMPLE_BASIC, shops, S/4HANA.
  private static let categoryNames = [
    "CategoryName", "Category", "ProductCategory", "ProductGroup", "MainCategory",
  ]

  /// GTIN properties, best first, compared without case: GTIN, then EAN (SAP's material master
  /// calls it `EAN11`), then UPC, then S/4HANA's `ProductStandardID` and its label
  /// `InternationalArticleNumber`, then `Barcode`.
  private static let gtinNames = [
    "GTIN", "GTIN14", "GTIN13", "GTIN12", "GTIN8",
    "EAN", "EAN13", "EAN8", "EAN11", "EANCode", "EAN_Code",
    "UPC", "UPCA", "UPCCode", "UPC_Code",
    "ProductStandardID", "InternationalArticleNumber",
    "Barcode",
  ]

  /// Names of the optional properties, best first, compared without case.
  private static var roleNames: [(WritableKeyPath<CatalogSchema, String?>, [String])] {
    [
      (\.name, ["Name", "ProductName", "Title"]),
      (
        \.description, ["ShortDescription", "Description", "ProductDescription", "LongDescription"]
      ),
      (\.price, ["Price", "UnitPrice", "ListPrice", "NetPrice", "SalesPrice"]),
      (\.currency, ["CurrencyCode", "Currency", "CurrencyCodeISO", "PriceCurrency", "Waers"]),
      (
        \.picture,
        [
          "PictureUrl", "PictureURL", "ProductPicUrl", "ImageUrl", "ImageURL", "PictureUri",
          "Picture", "Image", "ThumbnailUrl",
        ]
      ),
    ]
  }

  /// Finds the schema of a service from its `$metadata`.
  ///
  /// Without an entity set, the product set is the one named like ESPM's `Products`,
  /// GWSAMPLE_BASIC's `ProductSet` or S/4HANA's `A_Product` (else any set whose name has
  /// "product" in it) that has a category: a property named `CategoryName`, `Category`,
  /// `ProductCategory`, `ProductGroup` or `MainCategory`, or a single-valued navigation property
  /// with "category" in its name leading to a `CategoryName` (Northwind's
  /// `Category/CategoryName`). Two equally good candidates are an error, never a guess.
  ///
  /// The GTIN is the first `Edm.String`, `Edm.Int64` or `Edm.Decimal` property named, without
  /// regard to case, `GTIN`, `GTIN14`, `GTIN13`, `GTIN12` or `GTIN8`; else `EAN`, `EAN13`,
  /// `EAN8`, `EAN11`, `EANCode` or `EAN_Code`; else `UPC`, `UPCA`, `UPCCode` or `UPC_Code`; else
  /// `ProductStandardID` or `InternationalArticleNumber`; else `Barcode`. A product without one
  /// has none.
  ///
  /// - Parameters:
  ///   - metadata: The service's metadata.
  ///   - entitySet: The product entity set, when known.
  ///   - category: The category property or path, when known.
  ///   - gtin: The GTIN property, when known.
  /// - Returns: The validated schema.
  /// - Throws: ``CatalogError/Code/invalidSchema`` when no set or category is recognized, when
  ///   two are, or when a given name does not fit.
  package static func detect(
    in metadata: ServiceMetadata, entitySet: String? = nil, category: ODataPath? = nil,
    gtin: String? = nil
  ) throws(CatalogError) -> CatalogSchema {
    let sets =
      try entitySet.map { (name) throws(CatalogError) in [try Self.entitySet(name, in: metadata)] }
      ?? metadata.entitySets
    var candidates: [(set: ServiceMetadata.EntitySet, rank: Int, category: ODataPath)] = []
    for set in sets {
      guard let type = metadata.entityType(of: set) else { continue }
      let productRank = entitySet == nil ? Self.productRank(set, type) : 0
      guard productRank < 2 else { continue }
      if let category {
        candidates.append((set, productRank * 10, category))
      } else if let (path, rank) = detectCategory(of: type, in: metadata) {
        candidates.append((set, productRank * 10 + rank, path))
      }
    }
    candidates.sort { $0.rank < $1.rank }
    guard let best = candidates.first else {
      throw noCandidate(entitySet: entitySet, metadata: metadata)
    }
    if candidates.count > 1 && candidates[1].rank == best.rank {
      let names = candidates.filter { $0.rank == best.rank }.map(\.set.name)
      throw CatalogError(
        .invalidSchema,
        "the service has several product entity sets (\(list(names))); name the one to use")
    }
    return try schema(for: best.set, category: best.category, gtin: gtin, in: metadata)
  }

  /// 0 for a set named like a product set, 1 for one with "product" in its name, else 2.
  private static func productRank(
    _ set: ServiceMetadata.EntitySet, _ type: ServiceMetadata.EntityType
  ) -> Int {
    let names = [set.name.lowercased(), type.name.lowercased()]
    if names.contains(where: productSetNames.contains) || type.name.lowercased() == "product" {
      return 0
    }
    return names.contains { $0.contains("product") } ? 1 : 2
  }

  /// The category of an entity type and its rank (lower is better), when one is recognized.
  private static func detectCategory(
    of type: ServiceMetadata.EntityType, in metadata: ServiceMetadata
  ) -> (ODataPath, Int)? {
    let ranked = categoryNames.enumerated().compactMap { index, name -> (ODataPath, Int)? in
      guard let property = type.property(named: name),
        categoryTypes.contains(property.type)
      else { return nil }
      // A navigation path ranks just after `CategoryName`.
      return (ODataPath(name), index == 0 ? 0 : index + 1)
    }
    let navigation = type.navigationProperties.lazy
      .filter { !$0.isCollection && $0.name.lowercased().contains("category") }
      .compactMap { navigation -> (ODataPath, Int)? in
        guard let target = metadata.entityTypes[navigation.targetType],
          target.property(named: "CategoryName")?.type == "Edm.String"
        else { return nil }
        return (ODataPath(navigation.name + "/CategoryName"), 1)
      }
      .first
    return (ranked + (navigation.map { [$0] } ?? [])).min { $0.1 < $1.1 }
  }

  /// The schema of a chosen set: its key, the category, the optional properties found by name
  /// (the GTIN unless given), and a category set, validated.
  private static func schema(
    for set: ServiceMetadata.EntitySet, category: ODataPath, gtin: String?,
    in metadata: ServiceMetadata
  ) throws(CatalogError) -> CatalogSchema {
    let type = try entityType(of: set, in: metadata)
    guard type.key.count == 1, let key = type.key.first else {
      throw CatalogError(
        .invalidSchema,
        "\(set.name) has the composite key (\(type.key.joined(separator: ", "))); only a "
          + "single-property key is supported")
    }
    var schema = CatalogSchema(entitySet: set.name, key: key, category: category)
    var taken: Set<String> = [key.lowercased(), category.description.lowercased()]
    for (role, names) in roleNames {
      let found = names.lazy.compactMap { name in
        type.properties.first { $0.name.lowercased() == name.lowercased() }
      }
      .first { !taken.contains($0.name.lowercased()) && fits($0, role) }
      schema[keyPath: role] = found?.name
      found.map { _ = taken.insert($0.name.lowercased()) }
    }
    schema.gtin = gtin ?? detectGTIN(of: type, besides: category)
    if schema.picture == nil && type.hasStream {
      schema.picture = mediaResource
    }
    if category.segments.count == 1 {
      schema.categorySet = categorySet(for: category.description, of: set, in: metadata)
    }
    return try schema.validated(against: metadata)
  }

  /// The first property named like a GTIN that has a GTIN's type and is not the category; it
  /// may be the key, as in a catalog keyed by EAN.
  private static func detectGTIN(of type: ServiceMetadata.EntityType, besides category: ODataPath)
    -> String?
  {
    let category = category.description.lowercased()
    return gtinNames.lazy.compactMap { name in
      type.properties.first { $0.name.lowercased() == name.lowercased() }
    }
    .first { $0.name.lowercased() != category && gtinTypes.contains($0.type) }?.name
  }

  private static func fits(
    _ property: ServiceMetadata.Property, _ role: WritableKeyPath<CatalogSchema, String?>
  ) -> Bool {
    role == \.price ? priceTypes.contains(property.type) : property.type == "Edm.String"
  }

  /// The one other entity set named like a category list that has the category property.
  private static func categorySet(
    for property: String, of products: ServiceMetadata.EntitySet, in metadata: ServiceMetadata
  ) -> String? {
    let sets = metadata.entitySets.filter { set in
      set.name != products.name && set.name.lowercased().contains("categor")
        && metadata.entityType(of: set)?.property(named: property) != nil
    }
    return sets.count == 1 ? sets[0].name : nil
  }

  private static func noCandidate(entitySet: String?, metadata: ServiceMetadata) -> CatalogError {
    if let entitySet {
      return CatalogError(
        .invalidSchema,
        "\(entitySet) has no recognizable category property (\(list(categoryNames)) or a "
          + "navigation path to CategoryName); name the category property")
    }
    return CatalogError(
      .invalidSchema,
      "no product entity set with a category was recognized in $metadata; the service has "
        + "\(list(metadata.entitySets.map(\.name))); name the entity set and its category "
        + "property")
  }
}
