import Foundation
import VisionCatalog

/// The options every catalog-reading subcommand shares:
/// `[--service URL --odata-version 2|4 | --catalog FILE]`.
enum CatalogOptions {
  static let valued: Set<String> = ["service", "odata-version", "catalog"]

  static let help = """
      --service URL         an OData service root (http or https)
      --odata-version 2|4   the service's OData version (default 4)
      --catalog FILE        a local catalog JSON file (default: the bundled sample catalog)
    """

  /// The catalog source the arguments name; the bundled catalog when none is given.
  static func source(from arguments: CommandLineArguments) throws(CLIError) -> CatalogSource {
    let version = try arguments.choice("odata-version", of: ["2", "4"])
    switch (arguments.value("service"), arguments.value("catalog")) {
    case (.some, .some):
      throw CLIError.usage("--service and --catalog cannot be combined")
    case (.some(let service), .none):
      guard let url = URL(string: service), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", url.host != nil
      else {
        throw CLIError.usage("--service must be an http or https URL, not '\(service)'")
      }
      return .service(url, version == "2" ? .v2 : .v4)
    case (.none, .some(let path)):
      guard version == nil else { throw CLIError.usage("--odata-version needs --service") }
      return .file(URL(fileURLWithPath: path))
    case (.none, .none):
      guard version == nil else { throw CLIError.usage("--odata-version needs --service") }
      return .bundled
    }
  }
}
