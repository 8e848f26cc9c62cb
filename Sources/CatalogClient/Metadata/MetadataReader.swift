import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads the CSDL XML of a `$metadata` document into ``ServiceMetadata``.
///
/// The bytes are screened first (UTF-8, no document type declaration, no element with too many
/// attributes), then `XMLParser` reads them with namespace processing into
/// ``MetadataDeclarations`` while the delegate enforces the element, depth and name bounds; the
/// declarations are resolved and checked last.
enum MetadataReader {
  /// The deepest element nesting read; CSDL itself needs about eight levels.
  static let maximumDepth = 64
  /// The longest name, namespace, alias or type reference read, in UTF-8 bytes.
  static let maximumNameBytes = 512
  /// The most attributes one element may have, namespace declarations included; SAP's
  /// annotated properties, the most attributed CSDL elements, have about thirty.
  static let maximumAttributes = 128

  /// Reads a document; see ``ServiceMetadata/read(_:maximumElements:)``.
  ///
  /// - Parameters:
  ///   - data: The document's bytes.
  ///   - maximumElements: The most elements to read; must be positive.
  /// - Returns: The service metadata.
  /// - Throws: ``CatalogError/Code/invalidMetadata`` when the document cannot be read.
  static func read(_ data: Data, maximumElements: Int) throws(CatalogError) -> ServiceMetadata {
    precondition(maximumElements > 0, "maximumElements must be positive")
    try screen(data)
    let declarations = try parse(data, maximumElements: maximumElements)
    return try declarations.resolved(memberBudget: maximumElements)
  }

  /// Refuses, before any parsing, what the bytes already show is not a CSDL document or could
  /// make the parser expand entities or spend more than linear time.
  private static func screen(_ data: Data) throws(CatalogError) {
    guard !data.isEmpty else {
      throw CatalogError(.invalidMetadata, "the document is empty")
    }
    let bytes = [UInt8](data)
    // NUL never occurs in XML 1.0; refusing it also rules out UTF-16 and UTF-32, in which the
    // byte checks below could not see the markup.
    guard !bytes.contains(0) else {
      throw CatalogError(
        .invalidMetadata, "the document is not XML: it contains NUL bytes (only UTF-8 is read)")
    }
    let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
    guard body.first(where: { !isWhitespace($0) }) == UInt8(ascii: "<") else {
      throw CatalogError(.invalidMetadata, "the document is not XML: it does not start with '<'")
    }
    if let encoding = declaredEncoding(body), !["utf-8", "utf8"].contains(encoding.lowercased()) {
      throw CatalogError(
        .invalidMetadata,
        "the document declares the encoding '\(encoding.prefix(40))'; only UTF-8 is read")
    }
    // FoundationXML runs libxml2 with entity substitution on (XML_PARSE_NOENT), so entities
    // declared in a DTD would be expanded: nested ones grow exponentially ("billion laughs")
    // and external ones read files. CSDL never has a document type declaration, so one is
    // refused here, before the parser sees it; without it only the five predefined entities
    // and character references exist.
    if bytes.firstRange(of: Array("<!DOCTYPE".utf8)) != nil {
      throw CatalogError(
        .invalidMetadata,
        "the document has a document type declaration (<!DOCTYPE), which CSDL never uses; "
          + "refused so that no entity can be expanded")
    }
    try checkAttributeCounts(bytes)
  }

  /// Whether a byte is XML white space.
  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// The encoding named in the XML declaration, when the document starts with one that names
  /// it; an empty string for a declaration this check cannot read, so that it is refused.
  private static func declaredEncoding(_ body: ArraySlice<UInt8>) -> String? {
    guard body.starts(with: Array("<?xml".utf8)) else {
      return nil
    }
    let head = body.prefix(1_024)
    guard let end = head.firstRange(of: Array("?>".utf8)) else {
      return ""
    }
    let declaration = String(decoding: head[..<end.lowerBound], as: UTF8.self)
    guard let keyword = declaration.range(of: "encoding") else {
      return nil
    }
    let value = declaration[keyword.upperBound...].drop { " \t\r\n=".contains($0) }
    guard let quote = value.first, quote == "\"" || quote == "'" else {
      return ""
    }
    return String(value.dropFirst().prefix { $0 != quote })
  }

  /// Refuses a start tag with more than ``maximumAttributes`` attributes.
  ///
  /// libxml2 compares each attribute of a tag with the ones before it, so one tag with a
  /// million attributes would keep the parser busy for minutes before the delegate could count
  /// anything. The scan skips comments, CDATA sections, processing instructions and quoted
  /// values as the parser does, so the two agree on every document that parses up to the tag.
  private static func checkAttributeCounts(_ bytes: [UInt8]) throws(CatalogError) {
    var index = 0
    while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
      let markup = bytes[(open + 1)...]
      if markup.starts(with: Array("!--".utf8)) {
        index = self.index(after: "-->", in: bytes, from: open + 4)
      } else if markup.starts(with: Array("![CDATA[".utf8)) {
        index = self.index(after: "]]>", in: bytes, from: open + 9)
      } else if markup.first == UInt8(ascii: "?") {
        index = self.index(after: "?>", in: bytes, from: open + 2)
      } else if markup.first == UInt8(ascii: "!") || markup.first == UInt8(ascii: "/") {
        index = self.index(after: ">", in: bytes, from: open + 1)
      } else {
        index = try indexAfterStartTag(in: bytes, from: open + 1)
      }
    }
  }

  /// The index just past the first `terminator` at or after `start`, or the end of `bytes`.
  private static func index(after terminator: String, in bytes: [UInt8], from start: Int) -> Int {
    guard start < bytes.count, let range = bytes[start...].firstRange(of: Array(terminator.utf8))
    else {
      return bytes.count
    }
    return range.upperBound
  }

  /// The index just past a start tag's `>`, counting its attributes (namespace declarations
  /// included) as the `=` signs outside quoted values.
  private static func indexAfterStartTag(
    in bytes: [UInt8], from start: Int
  ) throws(CatalogError) -> Int {
    var attributes = 0
    var quote: UInt8?
    var index = start
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if let open = quote {
        quote = byte == open ? nil : open
      } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        quote = byte
      } else if byte == UInt8(ascii: "=") {
        attributes += 1
        guard attributes <= maximumAttributes else {
          let line = bytes[..<start].count { $0 == UInt8(ascii: "\n") } + 1
          throw CatalogError(
            .invalidMetadata,
            "an element has more than \(maximumAttributes) attributes (line \(line))")
        }
      } else if byte == UInt8(ascii: ">") {
        break
      }
    }
    return index
  }

  /// Runs `XMLParser` over the document and returns what the delegate collected.
  private static func parse(
    _ data: Data, maximumElements: Int
  ) throws(CatalogError) -> MetadataDeclarations {
    let delegate = MetadataParserDelegate(maximumElements: maximumElements)
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    parser.shouldReportNamespacePrefixes = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = delegate
    let succeeded = parser.parse()
    if let failure = delegate.failure {
      throw failure
    }
    guard succeeded else {
      let code = parser.parserError.map { String(($0 as NSError).code) } ?? "unknown"
      throw CatalogError(
        .invalidMetadata,
        "the document is not well-formed XML (XMLParser error \(code)) at line \(parser.lineNumber)"
      )
    }
    guard delegate.hasRoot else {
      throw CatalogError(.invalidMetadata, "the document has no root element")
    }
    return delegate.declarations
  }
}

/// The attributes of one element, read with the name length bound.
private struct Attributes {
  /// The element's local name, for messages.
  let element: String
  /// The attribute values by qualified name as written.
  let values: [String: String]

  /// A non-empty attribute the element must have.
  func required(_ name: String) throws(CatalogError) -> String {
    guard let value = try optional(name), !value.isEmpty else {
      throw CatalogError(.invalidMetadata, "a <\(element)> element has no \(name) attribute")
    }
    return value
  }

  /// An attribute the element may have, at most ``MetadataReader/maximumNameBytes`` long.
  func optional(_ name: String) throws(CatalogError) -> String? {
    guard let value = values[name] else {
      return nil
    }
    guard value.utf8.count <= MetadataReader.maximumNameBytes else {
      throw CatalogError(
        .invalidMetadata,
        "the \(name) of a <\(element)> element is longer than "
          + "\(MetadataReader.maximumNameBytes) bytes")
    }
    return value
  }

  /// An `xs:boolean` attribute (`true`, `false`, `1`, `0`), or `absent` when it is missing or
  /// not a boolean.
  func flag(_ name: String, absent: Bool) -> Bool {
    values[name].flatMap(Self.boolean) ?? absent
  }

  /// The value of an `xs:boolean` literal.
  static func boolean(_ text: String) -> Bool? {
    switch text {
    case "true", "1": true
    case "false", "0": false
    default: nil
    }
  }
}

/// The `XMLParser` delegate that collects ``MetadataDeclarations`` and enforces the element,
/// depth and name bounds, aborting the parse at the first problem.
///
/// An `NSObject` because `XMLParserDelegate` requires one. It is created, driven and read on the
/// one thread that runs ``MetadataReader/read(_:maximumElements:)`` and never leaves it, so it
/// is deliberately not `Sendable`.
private final class MetadataParserDelegate: NSObject, XMLParserDelegate {
  /// Where an element sits in the CSDL structure; elements elsewhere are counted and skipped.
  private enum Context {
    case document
    case edmx
    case reference
    case dataServices
    case schema
    case entityType
    case key
    case association
    case entityContainer
    case skipped
  }

  /// The EDMX namespaces of v2 (EDMX 1.0) and v4.
  private static let edmxNamespaces: Set<String> = [
    "http://schemas.microsoft.com/ado/2007/06/edmx",
    "http://docs.oasis-open.org/odata/ns/edmx",
  ]
  /// The CSDL schema namespaces of v2 (CSDL 1.0 to 3.0) and v4.
  private static let edmNamespaces: Set<String> = [
    "http://schemas.microsoft.com/ado/2006/04/edm",
    "http://schemas.microsoft.com/ado/2007/05/edm",
    "http://schemas.microsoft.com/ado/2008/09/edm",
    "http://schemas.microsoft.com/ado/2009/11/edm",
    "http://docs.oasis-open.org/odata/ns/edm",
  ]
  /// The v2 data services metadata namespace of `m:HasStream`.
  private static let dataServicesMetadataNamespace =
    "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"

  private let maximumElements: Int
  /// What the document declares, complete once the parse has succeeded.
  private(set) var declarations = MetadataDeclarations()
  /// The first problem found, after which the parse was aborted.
  private(set) var failure: CatalogError?
  /// Whether the root element was read (and is `edmx:Edmx`).
  private(set) var hasRoot = false
  private var contexts: [Context] = [.document]
  private var elementCount = 0
  /// The namespace URIs each prefix is bound to, innermost last.
  private var namespaces: [String: [String]] = [:]
  private var schemaNamespace = ""
  private var entityType: MetadataDeclarations.EntityType?
  private var association: MetadataDeclarations.Association?

  /// Creates a delegate that reads at most `maximumElements` elements.
  init(maximumElements: Int) {
    self.maximumElements = maximumElements
  }

  /// Enters an element, or aborts the parse when it breaks a bound or misses an attribute.
  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?, attributes attributeDict: [String: String]
  ) {
    guard failure == nil else {
      return
    }
    do throws(CatalogError) {
      let attributes = Attributes(element: elementName, values: attributeDict)
      contexts.append(try enter(elementName, namespace: namespaceURI ?? "", attributes))
    } catch {
      fail(CatalogError(.invalidMetadata, "\(error.message) (line \(parser.lineNumber))"), parser)
    }
  }

  /// Leaves an element, keeping the entity type or association it completes.
  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?
  ) {
    guard failure == nil, let context = contexts.popLast() else {
      return
    }
    switch context {
    case .entityType:
      if let entityType {
        declarations.entityTypes.append(entityType)
      }
      entityType = nil
    case .association:
      if let association {
        declarations.associations.append(association)
      }
      association = nil
    default:
      break
    }
  }

  /// Binds a namespace prefix for the element about to start.
  func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String)
  {
    namespaces[prefix, default: []].append(namespaceURI)
  }

  /// Unbinds a namespace prefix at the end of the element that bound it.
  func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
    _ = namespaces[prefix]?.popLast()
  }

  /// Aborts at the first XML error; FoundationXML parses in recovery mode, so `parse()` alone
  /// can report success for a broken document.
  func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
    guard failure == nil else {
      return
    }
    let code = (parseError as NSError).code
    fail(
      CatalogError(
        .invalidMetadata,
        "the document is not well-formed XML (XMLParser error \(code)) at line \(parser.lineNumber)"
      ), parser)
  }

  /// Records the first failure and stops the parser.
  private func fail(_ error: CatalogError, _ parser: XMLParser) {
    failure = error
    parser.abortParsing()
  }

  /// Counts an element against the bounds and reads it in its parent's context.
  private func enter(
    _ name: String, namespace: String, _ attributes: Attributes
  ) throws(CatalogError) -> Context {
    elementCount += 1
    guard elementCount <= maximumElements else {
      throw CatalogError(
        .invalidMetadata, "the document has more than \(maximumElements) elements")
    }
    guard contexts.count <= MetadataReader.maximumDepth else {
      throw CatalogError(
        .invalidMetadata, "elements are nested deeper than \(MetadataReader.maximumDepth) levels")
    }
    let parent = contexts.last ?? .document
    if parent == .document {
      return try root(name, namespace: namespace)
    }
    if Self.edmxNamespaces.contains(namespace) {
      return try edmxElement(name, in: parent, attributes)
    }
    if Self.edmNamespaces.contains(namespace) {
      return try edmElement(name, in: parent, attributes)
    }
    return .skipped
  }

  /// The root must be `edmx:Edmx` of v2 or v4.
  private func root(_ name: String, namespace: String) throws(CatalogError) -> Context {
    guard name == "Edmx", Self.edmxNamespaces.contains(namespace) else {
      throw CatalogError(
        .invalidMetadata,
        "not an EDMX document: the root element is '\(name.prefix(80))' in the namespace "
          + "'\(namespace.prefix(120))', not edmx:Edmx")
    }
    hasRoot = true
    return .edmx
  }

  /// An element of the EDMX wrapper: `DataServices`, and v4 references with their aliases.
  private func edmxElement(
    _ name: String, in parent: Context, _ attributes: Attributes
  ) throws(CatalogError) -> Context {
    switch (parent, name) {
    case (.edmx, "DataServices"):
      return .dataServices
    case (.edmx, "Reference"):
      return .reference
    case (.reference, "Include"):
      let namespace = try attributes.required("Namespace")
      if let alias = try attributes.optional("Alias") {
        try declareAlias(alias, for: namespace)
      }
      return .skipped
    default:
      return .skipped
    }
  }

  /// An element of a CSDL schema, in the parent it must have to be read.
  private func edmElement(
    _ name: String, in parent: Context, _ attributes: Attributes
  ) throws(CatalogError) -> Context {
    switch (parent, name) {
    case (.dataServices, "Schema"):
      try beginSchema(attributes)
      return .schema
    case (.schema, "EntityType"):
      try beginEntityType(attributes)
      return .entityType
    case (.schema, "Association"):
      association = MetadataDeclarations.Association(
        qualifiedName: schemaNamespace + "." + (try attributes.required("Name")))
      return .association
    case (.schema, "EntityContainer"):
      return .entityContainer
    case (.entityType, "Key"):
      return .key
    case (.entityType, "Property"):
      entityType?.properties.append(
        ServiceMetadata.Property(
          name: try attributes.required("Name"), type: try attributes.required("Type"),
          isNullable: attributes.flag("Nullable", absent: true)))
    case (.entityType, "NavigationProperty"):
      entityType?.navigationProperties.append(try navigationProperty(attributes))
    case (.key, "PropertyRef"):
      entityType?.key.append(try attributes.required("Name"))
    case (.association, "End"):
      try addAssociationEnd(attributes)
    case (.entityContainer, "EntitySet"):
      declarations.entitySets.append(
        ServiceMetadata.EntitySet(
          name: try attributes.required("Name"), entityType: try attributes.required("EntityType")))
    default:
      break
    }
    return .skipped
  }

  /// Starts a schema: its namespace qualifies the names declared in it.
  private func beginSchema(_ attributes: Attributes) throws(CatalogError) {
    schemaNamespace = try attributes.required("Namespace")
    if let alias = try attributes.optional("Alias") {
      try declareAlias(alias, for: schemaNamespace)
    }
  }

  /// Records an alias; one alias cannot stand for two namespaces.
  private func declareAlias(_ alias: String, for namespace: String) throws(CatalogError) {
    if let existing = declarations.aliases.updateValue(namespace, forKey: alias),
      existing != namespace
    {
      throw CatalogError(
        .invalidMetadata, "the alias '\(alias)' stands for both '\(existing)' and '\(namespace)'")
    }
  }

  /// Starts an entity type; its key, properties and navigation properties follow.
  private func beginEntityType(_ attributes: Attributes) throws(CatalogError) {
    entityType = MetadataDeclarations.EntityType(
      namespace: schemaNamespace, name: try attributes.required("Name"),
      baseType: try attributes.optional("BaseType"), hasStream: hasStream(attributes))
  }

  /// v4 writes `HasStream`; v2 writes it in the data services metadata namespace, usually as
  /// `m:HasStream`, whatever the prefix is bound to.
  private func hasStream(_ attributes: Attributes) -> Bool {
    if attributes.values["HasStream"] != nil {
      return attributes.flag("HasStream", absent: false)
    }
    for (name, value) in attributes.values {
      guard let colon = name.firstIndex(of: ":"),
        name[name.index(after: colon)...] == "HasStream",
        namespaces[String(name[..<colon])]?.last == Self.dataServicesMetadataNamespace
      else {
        continue
      }
      return Attributes.boolean(value) ?? false
    }
    return false
  }

  /// A v4 navigation property names its type; a v2 one its association and target role.
  private func navigationProperty(
    _ attributes: Attributes
  ) throws(CatalogError) -> MetadataDeclarations.NavigationProperty {
    let name = try attributes.required("Name")
    if let type = try attributes.optional("Type") {
      return MetadataDeclarations.NavigationProperty(name: name, target: .type(type))
    }
    return MetadataDeclarations.NavigationProperty(
      name: name,
      target: .association(
        try attributes.required("Relationship"), toRole: try attributes.required("ToRole")))
  }

  /// Adds an end to the current v2 association unless its role already has one.
  private func addAssociationEnd(_ attributes: Attributes) throws(CatalogError) {
    let role = try attributes.required("Role")
    let end = MetadataDeclarations.AssociationEnd(
      type: try attributes.required("Type"),
      multiplicity: try attributes.required("Multiplicity"))
    if association?.ends[role] == nil {
      association?.ends[role] = end
    }
  }
}
