import Foundation
import VisionCatalog

/// The options every catalog-reading subcommand shares: where the catalog is (`--service` with
/// its OData version and credentials, or `--catalog`) and how its schema is found.
enum CatalogOptions {
  /// `--service URL`: an OData service root.
  static let service = Option.text(
    "service", "URL", help: "an OData service root (http or https)")
  /// `--odata-version 2|4`: the service's protocol version.
  static let odataVersion = Option.choice(
    "odata-version", ["2", "4"], help: "the service's OData version (default 4)")
  /// `--catalog FILE`: a local catalog file instead of a service.
  static let catalog = Option.text(
    "catalog", "FILE",
    help: "a local catalog JSON file (default: the bundled sample catalog); not together "
      + "with --service")
  /// `--entity-set NAME`: the products' entity set, when `$metadata` does not make it clear.
  static let entitySet = Option.text(
    "entity-set", "NAME",
    help: "the entity set of the products, when the service's $metadata names it otherwise "
      + "than Products, ProductSet or A_Product")
  /// `--category-property PATH`: the products' category property or navigation path.
  static let categoryProperty = Option.text(
    "category-property", "PATH",
    help: "the products' category: a property or a navigation path such as "
      + "Category/CategoryName (default: found in $metadata)")
  /// `--gtin-property NAME`: the products' GTIN property, when `$metadata` does not make it clear.
  static let gtinProperty = Option.text(
    "gtin-property", "NAME",
    help: "the products' GTIN/EAN/UPC property, when $metadata does not make it clear")
  /// `--schema FILE.json`: the whole catalog schema, instead of finding it.
  static let schema = Option.text(
    "schema", "FILE.json",
    help: #"the whole catalog schema: {"entitySet", "key", "category", and optionally "name", "#
      + #""description", "price", "currency", "picture" (a property, or "$value" for the media "#
      + #"resource), "gtin" (the GTIN/EAN/UPC property), "categorySet", "categorySetProperty"}; "#
      + "checked against $metadata; not together with --entity-set, --category-property or "
      + "--gtin-property")

  /// The whole group, in the order the help lists it.
  static let all =
    [service, odataVersion] + ServiceCredentials.all
    + [catalog, entitySet, categoryProperty, gtinProperty, schema]

  /// The catalog source and credentials the arguments name; the bundled catalog when none is
  /// given.
  static func source(
    from arguments: CommandLineArguments,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(CLIError) -> CatalogSelection {
    let version = arguments.value(odataVersion)
    let credentials = try ServiceCredentials.read(
      from: arguments, hasService: arguments.value(service) != nil, environment: environment)
    if version != nil, arguments.value(service) == nil {
      throw odataVersion.usageError("needs \(service)")
    }
    switch (arguments.value(service), arguments.value(catalog)) {
    case (.some, .some):
      throw CLIError.usage("\(service) and \(catalog) cannot be combined")
    case (.some(let service), .none):
      guard let url = URL(string: service), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", url.host != nil
      else {
        throw Self.service.usageError("must be an http or https URL, not '\(service)'")
      }
      // Credentials in the URL would be printed with every query it is part of.
      guard url.user == nil, url.password == nil else {
        throw Self.service.usageError(
          "must not contain credentials; use \(ServiceCredentials.user) with "
            + "\(ServiceCredentials.passwordVariable) or \(ServiceCredentials.passwordFile)")
      }
      return CatalogSelection(
        source: .service(url, version == "2" ? .v2 : .v4), credentials: credentials,
        schema: try schemaRequest(from: arguments))
    case (.none, .some(let path)):
      return CatalogSelection(
        source: .file(URL(fileURLWithPath: path)), credentials: nil,
        schema: try schemaRequest(from: arguments))
    case (.none, .none):
      return CatalogSelection(
        source: .bundled, credentials: nil, schema: try schemaRequest(from: arguments))
    }
  }

  /// The schema options: a schema file, or names that complete what `$metadata` shows.
  private static func schemaRequest(from arguments: CommandLineArguments) throws(CLIError)
    -> CatalogSelection.SchemaRequest
  {
    let entitySet = arguments.value(Self.entitySet)
    let category = arguments.value(categoryProperty)
    let gtin = arguments.value(gtinProperty)
    guard let path = arguments.value(schema) else {
      return .discover(entitySet: entitySet, categoryProperty: category, gtinProperty: gtin)
    }
    guard entitySet == nil, category == nil, gtin == nil else {
      throw schema.usageError(
        "cannot be combined with \(Self.entitySet), \(categoryProperty) or \(gtinProperty)")
    }
    return .file(try SchemaFile.read(path))
  }
}
