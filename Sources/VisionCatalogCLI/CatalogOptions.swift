import Foundation
import VisionCatalog

/// The options every catalog-reading subcommand shares:
/// `[--service URL --odata-version 2|4 [--user NAME [--password-file F]] | --catalog FILE]
/// [--entity-set NAME --category-property PATH | --schema FILE.json]`.
enum CatalogOptions {
  static let valued: Set<String> = Set([
    "service", "odata-version", "catalog", "entity-set", "category-property", "schema",
  ]).union(ServiceCredentials.valued)

  /// The usage fragment every catalog-reading subcommand shows.
  static let usage =
    "[--service URL --odata-version 2|4 [--user NAME [--password-file F]] | --catalog FILE] "
    + "[--entity-set NAME] [--category-property PATH | --schema FILE.json]"

  static let help = """
      --service URL         an OData service root (http or https)
      --odata-version 2|4   the service's OData version (default 4)
    \(ServiceCredentials.help)
      --catalog FILE        a local catalog JSON file (default: the bundled sample catalog)
      --entity-set NAME     the entity set of the products, when the service's $metadata
                            names it otherwise than Products, ProductSet or A_Product
      --category-property PATH
                            the products' category: a property or a navigation path such as
                            Category/CategoryName (default: found in $metadata)
      --schema FILE.json    the whole catalog schema: {"entitySet", "key", "category", and
                            optionally "name", "description", "price", "currency",
                            "picture" (a property, or "$value" for the media resource),
                            "categorySet", "categorySetProperty"}; checked against $metadata
    """

  /// The catalog source and credentials the arguments name; the bundled catalog when none is
  /// given.
  static func source(
    from arguments: CommandLineArguments,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(CLIError) -> CatalogSelection {
    let version = try arguments.choice("odata-version", of: ["2", "4"])
    let credentials = try ServiceCredentials.read(
      from: arguments, hasService: arguments.value("service") != nil, environment: environment)
    switch (arguments.value("service"), arguments.value("catalog")) {
    case (.some, .some):
      throw CLIError.usage("--service and --catalog cannot be combined")
    case (.some(let service), .none):
      guard let url = URL(string: service), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", url.host != nil
      else {
        throw CLIError.usage("--service must be an http or https URL, not '\(service)'")
      }
      // Credentials in the URL would be printed with every query it is part of.
      guard url.user == nil, url.password == nil else {
        throw CLIError.usage(
          "--service must not contain credentials; use --user with "
            + "\(ServiceCredentials.passwordVariable) or --password-file")
      }
      return CatalogSelection(
        source: .service(url, version == "2" ? .v2 : .v4), credentials: credentials,
        schema: try schemaRequest(from: arguments))
    case (.none, .some(let path)):
      guard version == nil else { throw CLIError.usage("--odata-version needs --service") }
      return CatalogSelection(
        source: .file(URL(fileURLWithPath: path)), credentials: nil,
        schema: try schemaRequest(from: arguments))
    case (.none, .none):
      guard version == nil else { throw CLIError.usage("--odata-version needs --service") }
      return CatalogSelection(
        source: .bundled, credentials: nil, schema: try schemaRequest(from: arguments))
    }
  }

  /// The schema options: a schema file, or names that complete what `$metadata` shows.
  private static func schemaRequest(from arguments: CommandLineArguments) throws(CLIError)
    -> CatalogSelection.SchemaRequest
  {
    let entitySet = arguments.value("entity-set")
    let category = arguments.value("category-property")
    guard let path = arguments.value("schema") else {
      return .discover(entitySet: entitySet, categoryProperty: category)
    }
    guard entitySet == nil, category == nil else {
      throw CLIError.usage("--schema cannot be combined with --entity-set or --category-property")
    }
    return .file(try SchemaFile.read(path))
  }
}
