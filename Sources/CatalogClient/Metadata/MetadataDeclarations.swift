/// The declarations of a `$metadata` document as written, before schema aliases, base types and
/// v2 associations are resolved.
///
/// The XML delegate of ``MetadataReader`` fills it in document order;
/// ``resolved(memberBudget:)`` turns it into a checked ``ServiceMetadata``.
struct MetadataDeclarations {
  /// Where a declared navigation property leads.
  enum NavigationTarget {
    /// v4: the target type as written, `NS.T` or `Collection(NS.T)`.
    case type(String)
    /// v2: the association as written and the role of the end the property leads to.
    case association(String, toRole: String)
  }

  /// A navigation property as declared.
  struct NavigationProperty {
    /// The navigation property's name.
    var name: String
    /// Where it leads, as written.
    var target: NavigationTarget
  }

  /// An entity type as declared in its schema, without what it inherits.
  struct EntityType {
    /// The namespace of the schema that declares it.
    var namespace: String
    /// The name within the schema.
    var name: String
    /// The base type as written, when there is one.
    var baseType: String?
    /// The key property names (v4: paths) in order.
    var key: [String] = []
    /// The structural properties, with types as written.
    var properties: [ServiceMetadata.Property] = []
    /// The navigation properties as written.
    var navigationProperties: [NavigationProperty] = []
    /// Whether the type itself declares a media stream.
    var hasStream: Bool

    /// The qualified name, `Namespace.Name`.
    var qualifiedName: String { namespace + "." + name }
  }

  /// One end of a v2 association.
  struct AssociationEnd {
    /// The entity type at this end, as written.
    var type: String
    /// `1`, `0..1` or `*`.
    var multiplicity: String
  }

  /// A v2 association: the entity types a relationship connects.
  struct Association {
    /// The qualified name, `Namespace.Name`.
    var qualifiedName: String
    /// The ends by role; the first end declared for a role wins.
    var ends: [String: AssociationEnd] = [:]
  }

  /// Namespaces by the aliases that schemas and references declare for them.
  var aliases: [String: String] = [:]
  /// The entity types of every schema, in document order.
  var entityTypes: [EntityType] = []
  /// The v2 associations of every schema, in document order.
  var associations: [Association] = []
  /// The entity sets of every container in document order, entity types as written.
  var entitySets: [ServiceMetadata.EntitySet] = []

  /// Resolves aliases, inheritance and associations, and checks that the model is consistent.
  ///
  /// - Parameter memberBudget: The most key, property and navigation property entries that
  ///   inheritance may copy into derived types, so that a deep or wide hierarchy cannot make
  ///   memory grow faster than the document.
  /// - Returns: The service metadata.
  /// - Throws: ``CatalogError/Code/invalidMetadata`` for a type defined twice, an undefined base
  ///   type or entity set type, a base type cycle, a key property that does not exist, an
  ///   undefined association or role, or a hierarchy over the budget.
  func resolved(memberBudget: Int) throws(CatalogError) -> ServiceMetadata {
    var resolution = try Resolution(self, memberBudget: memberBudget)
    for type in entityTypes where resolution.entityTypes[type.qualifiedName] == nil {
      try resolution.resolve(type)
    }
    var sets: [ServiceMetadata.EntitySet] = []
    sets.reserveCapacity(entitySets.count)
    for set in entitySets {
      let type = resolution.qualified(set.entityType)
      guard resolution.entityTypes[type] != nil else {
        throw CatalogError(
          .invalidMetadata,
          "the entity set '\(set.name)' has the entity type '\(type)', which is not defined")
      }
      sets.append(ServiceMetadata.EntitySet(name: set.name, entityType: type))
    }
    return ServiceMetadata(entityTypes: resolution.entityTypes, entitySets: sets)
  }
}

/// The state of ``MetadataDeclarations/resolved(memberBudget:)``: lookups by qualified name and
/// the entity types flattened so far.
private struct Resolution {
  /// A type followed by its unresolved base types, and the resolved type the chain ends at.
  private typealias BaseChain = (
    declarations: [MetadataDeclarations.EntityType], root: ServiceMetadata.EntityType?
  )

  private let aliases: [String: String]
  private var declared: [String: MetadataDeclarations.EntityType] = [:]
  private var associations: [String: MetadataDeclarations.Association] = [:]
  private let memberBudget: Int
  private var remainingBudget: Int
  /// The flattened entity types by qualified name.
  private(set) var entityTypes: [String: ServiceMetadata.EntityType] = [:]

  /// Indexes the declarations; a type or association defined twice is an error.
  init(_ declarations: MetadataDeclarations, memberBudget: Int) throws(CatalogError) {
    aliases = declarations.aliases
    self.memberBudget = memberBudget
    remainingBudget = memberBudget
    for type in declarations.entityTypes {
      guard declared.updateValue(type, forKey: type.qualifiedName) == nil else {
        throw CatalogError(
          .invalidMetadata, "the entity type '\(type.qualifiedName)' is defined twice")
      }
    }
    for association in declarations.associations {
      guard associations.updateValue(association, forKey: association.qualifiedName) == nil else {
        throw CatalogError(
          .invalidMetadata, "the association '\(association.qualifiedName)' is defined twice")
      }
    }
  }

  /// A qualified name with a leading schema alias replaced by its namespace.
  func qualified(_ name: String) -> String {
    guard let dot = name.lastIndex(of: "."), let namespace = aliases[String(name[..<dot])] else {
      return name
    }
    return namespace + name[dot...]
  }

  /// A type reference with its alias resolved, inside `Collection(…)` too.
  private func typeName(_ written: String) -> String {
    guard let element = Self.collectionElement(written) else {
      return qualified(written)
    }
    return "Collection(\(qualified(String(element))))"
  }

  /// The element type of `Collection(T)`, or `nil` for a single-valued type.
  private static func collectionElement(_ type: String) -> Substring? {
    let prefix = "Collection("
    guard type.hasPrefix(prefix), type.hasSuffix(")") else {
      return nil
    }
    return type.dropFirst(prefix.count).dropLast()
  }

  /// Flattens a type and every unresolved type on its base type chain, base first.
  ///
  /// Iterative rather than recursive, so a chain as long as the document cannot exhaust the
  /// stack.
  mutating func resolve(_ type: MetadataDeclarations.EntityType) throws(CatalogError) {
    let (chain, root) = try baseChain(of: type)
    var base = root
    for declaration in chain.reversed() {
      let flattened = try flatten(declaration, base: base)
      entityTypes[declaration.qualifiedName] = flattened
      base = flattened
    }
  }

  /// The type's chain of base types up to the first one already resolved or the root.
  private func baseChain(of type: MetadataDeclarations.EntityType) throws(CatalogError) -> BaseChain
  {
    var chain = [type]
    var seen: Set<String> = [type.qualifiedName]
    var current = type
    while let written = current.baseType {
      let name = qualified(written)
      if let root = entityTypes[name] {
        return (chain, root)
      }
      guard let base = declared[name] else {
        throw CatalogError(
          .invalidMetadata,
          "the entity type '\(current.qualifiedName)' has the base type '\(name)', "
            + "which is not defined")
      }
      guard seen.insert(name).inserted else {
        throw CatalogError(
          .invalidMetadata,
          "the base types of the entity type '\(type.qualifiedName)' form a cycle through "
            + "'\(name)'")
      }
      chain.append(base)
      current = base
    }
    return (chain, nil)
  }

  /// One entity type with its base type's members first; the key comes from the base type
  /// when it has one.
  private mutating func flatten(
    _ declaration: MetadataDeclarations.EntityType, base: ServiceMetadata.EntityType?
  ) throws(CatalogError) -> ServiceMetadata.EntityType {
    var type = ServiceMetadata.EntityType(
      qualifiedName: declaration.qualifiedName, name: declaration.name, key: declaration.key,
      properties: [], navigationProperties: [], hasStream: declaration.hasStream)
    if let base {
      try spend(base.key.count + base.properties.count + base.navigationProperties.count)
      if !base.key.isEmpty {
        type.key = base.key
      }
      type.properties = base.properties
      type.navigationProperties = base.navigationProperties
      type.hasStream = type.hasStream || base.hasStream
    }
    for property in declaration.properties {
      type.properties.append(
        ServiceMetadata.Property(
          name: property.name, type: typeName(property.type), isNullable: property.isNullable))
    }
    for navigation in declaration.navigationProperties {
      type.navigationProperties.append(
        try resolvedNavigation(navigation, of: declaration.qualifiedName))
    }
    try checkKey(of: type)
    return type
  }

  /// Charges inherited members against the budget.
  private mutating func spend(_ members: Int) throws(CatalogError) {
    remainingBudget -= members
    guard remainingBudget >= 0 else {
      throw CatalogError(
        .invalidMetadata,
        "base types copy more than \(memberBudget) inherited members into derived types")
    }
  }

  /// Every key property (the first segment of a v4 key path) must be a property of the type.
  private func checkKey(of type: ServiceMetadata.EntityType) throws(CatalogError) {
    guard !type.key.isEmpty else {
      return
    }
    let names = Set(type.properties.map(\.name))
    for key in type.key {
      let property = key.split(separator: "/", omittingEmptySubsequences: false).first ?? ""
      guard names.contains(String(property)) else {
        throw CatalogError(
          .invalidMetadata,
          "the key property '\(key)' of the entity type '\(type.qualifiedName)' does not exist")
      }
    }
  }

  /// A navigation property with its target type and multiplicity, from its v4 type or its v2
  /// association end.
  private func resolvedNavigation(
    _ navigation: MetadataDeclarations.NavigationProperty, of owner: String
  ) throws(CatalogError) -> ServiceMetadata.NavigationProperty {
    switch navigation.target {
    case .type(let written):
      if let element = Self.collectionElement(written) {
        return ServiceMetadata.NavigationProperty(
          name: navigation.name, targetType: qualified(String(element)), isCollection: true)
      }
      return ServiceMetadata.NavigationProperty(
        name: navigation.name, targetType: qualified(written), isCollection: false)
    case .association(let written, let role):
      let name = qualified(written)
      guard let association = associations[name] else {
        throw CatalogError(
          .invalidMetadata,
          "the navigation property '\(navigation.name)' of '\(owner)' refers to the association "
            + "'\(name)', which is not defined")
      }
      guard let end = association.ends[role] else {
        throw CatalogError(
          .invalidMetadata,
          "the association '\(name)' has no end with the role '\(role)' that the navigation "
            + "property '\(navigation.name)' of '\(owner)' leads to")
      }
      return ServiceMetadata.NavigationProperty(
        name: navigation.name, targetType: qualified(end.type),
        isCollection: end.multiplicity == "*")
    }
  }
}
