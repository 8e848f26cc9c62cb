package import Foundation

/// The entity model an OData service describes in its `$metadata` document.
///
/// Read from the CSDL XML of OData v2 (EDMX 1.0) and v4 services alike. Type names are
/// qualified (`Namespace.Name`) with schema aliases already replaced by their namespaces, and
/// entity types are flattened: a derived type lists its base types' key, properties and
/// navigation properties itself. Complex types, enumerations, functions and annotations are not
/// kept.
package struct ServiceMetadata: Sendable, Hashable {
  /// A structural property of an entity type.
  package struct Property: Sendable, Hashable {
    /// The property's name.
    package var name: String
    /// The property's type as written, aliases resolved, such as `Edm.Decimal`,
    /// `NS.Address` or `Collection(Edm.String)`.
    package var type: String
    /// Whether the property may be null; the `Nullable` attribute, true when absent.
    package var isNullable: Bool

    /// Creates a property.
    ///
    /// - Parameters:
    ///   - name: The property's name.
    ///   - type: The qualified type name, aliases resolved.
    ///   - isNullable: Whether the property may be null.
    package init(name: String, type: String, isNullable: Bool) {
      self.name = name
      self.type = type
      self.isNullable = isNullable
    }
  }

  /// A navigation property: a link from an entity to one related entity or to a collection.
  package struct NavigationProperty: Sendable, Hashable {
    /// The navigation property's name.
    package var name: String
    /// The qualified name of the related entity type, aliases resolved, such as `NS.Category`.
    package var targetType: String
    /// Whether the property leads to a collection of entities rather than at most one.
    package var isCollection: Bool

    /// Creates a navigation property.
    ///
    /// - Parameters:
    ///   - name: The navigation property's name.
    ///   - targetType: The qualified name of the related entity type.
    ///   - isCollection: Whether it leads to a collection.
    package init(name: String, targetType: String, isCollection: Bool) {
      self.name = name
      self.targetType = targetType
      self.isCollection = isCollection
    }
  }

  /// An entity type with everything it inherits from its base types.
  package struct EntityType: Sendable, Hashable {
    /// The qualified name, `Namespace.Name`.
    package var qualifiedName: String
    /// The name within its schema.
    package var name: String
    /// The key property names in order, inherited from the base type when it has one.
    ///
    /// A v4 key that refers to a property of a complex property is kept as its path, such as
    /// `Address/City`.
    package var key: [String]
    /// The structural properties: the base types' first, then the type's own, in document order.
    package var properties: [Property]
    /// The navigation properties: the base types' first, then the type's own, in document order.
    package var navigationProperties: [NavigationProperty]
    /// Whether the entities are media entities with a stream (`HasStream`, inherited).
    package var hasStream: Bool

    /// Creates an entity type.
    ///
    /// - Parameters:
    ///   - qualifiedName: The qualified name, `Namespace.Name`.
    ///   - name: The name within its schema.
    ///   - key: The key property names in order.
    ///   - properties: The structural properties, inherited ones first.
    ///   - navigationProperties: The navigation properties, inherited ones first.
    ///   - hasStream: Whether the entities have a media stream.
    package init(
      qualifiedName: String, name: String, key: [String], properties: [Property],
      navigationProperties: [NavigationProperty], hasStream: Bool
    ) {
      self.qualifiedName = qualifiedName
      self.name = name
      self.key = key
      self.properties = properties
      self.navigationProperties = navigationProperties
      self.hasStream = hasStream
    }

    /// The first structural property with the given name.
    ///
    /// - Parameter name: The property's name, compared exactly.
    /// - Returns: The property, or `nil` when the type has none by that name.
    package func property(named name: String) -> Property? {
      properties.first { $0.name == name }
    }

    /// The first navigation property with the given name.
    ///
    /// - Parameter name: The navigation property's name, compared exactly.
    /// - Returns: The navigation property, or `nil` when the type has none by that name.
    package func navigationProperty(named name: String) -> NavigationProperty? {
      navigationProperties.first { $0.name == name }
    }
  }

  /// An entity set of an entity container: a collection a client can address by name.
  package struct EntitySet: Sendable, Hashable {
    /// The set's name, the path segment of its URL.
    package var name: String
    /// The qualified name of the set's entity type, aliases resolved.
    package var entityType: String

    /// Creates an entity set.
    ///
    /// - Parameters:
    ///   - name: The set's name.
    ///   - entityType: The qualified name of its entity type.
    package init(name: String, entityType: String) {
      self.name = name
      self.entityType = entityType
    }
  }

  /// The entity types of every schema, by qualified name.
  package var entityTypes: [String: EntityType]
  /// The entity sets of every entity container, in document order.
  package var entitySets: [EntitySet]

  /// Creates service metadata from its entity types and sets.
  ///
  /// - Parameters:
  ///   - entityTypes: The entity types by qualified name.
  ///   - entitySets: The entity sets in document order.
  package init(entityTypes: [String: EntityType], entitySets: [EntitySet]) {
    self.entityTypes = entityTypes
    self.entitySets = entitySets
  }

  /// The entity type of an entity set.
  ///
  /// - Parameter set: An entity set of this metadata.
  /// - Returns: The set's entity type, or `nil` when it is not one of these entity types.
  package func entityType(of set: EntitySet) -> EntityType? {
    entityTypes[set.entityType]
  }

  /// The first entity set with the given name.
  ///
  /// - Parameter name: The set's name, compared exactly.
  /// - Returns: The entity set, or `nil` when no container has one by that name.
  package func entitySet(named name: String) -> EntitySet? {
    entitySets.first { $0.name == name }
  }

  /// The first entity set whose entity type is exactly the given type, such as the set to
  /// address a navigation property's target in.
  ///
  /// - Parameter qualifiedName: The qualified entity type name, such as `NS.Category`.
  /// - Returns: The entity set, or `nil` when no set has that type.
  package func entitySet(ofType qualifiedName: String) -> EntitySet? {
    entitySets.first { $0.entityType == qualifiedName }
  }

  /// Reads a `$metadata` document of an OData v2 or v4 service.
  ///
  /// The document must be UTF-8 CSDL XML whose root is `edmx:Edmx`. Work and memory are bounded
  /// by the document's size and `maximumElements`, so untrusted documents are safe to read.
  ///
  /// - Parameters:
  ///   - data: The document's bytes, as the service sent them.
  ///   - maximumElements: The most XML elements to read, counting every element (annotations
  ///     and documentation too); also the most members that inheritance may copy into derived
  ///     types. Must be positive.
  /// - Returns: The service's entity types and sets.
  /// - Throws: ``CatalogError/Code/invalidMetadata`` when the document is not well-formed
  ///   UTF-8 XML, not EDMX, has a document type declaration, exceeds a bound (elements, nesting
  ///   depth 64, names of 512 bytes, 128 attributes on one element) or is inconsistent (an
  ///   undefined entity set type or base type, a base type cycle, a key property that does not
  ///   exist, an undefined association).
  package static func read(
    _ data: Data, maximumElements: Int = 200_000
  ) throws(CatalogError) -> ServiceMetadata {
    try MetadataReader.read(data, maximumElements: maximumElements)
  }
}
