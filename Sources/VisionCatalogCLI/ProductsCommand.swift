import Foundation
import VisionCatalog

/// `vision-catalog products --category NAME [catalog options] [--json]`.
struct ProductsCommand: Subcommand {
  let name = "products"
  let summary = "List the products of one catalog category."
  let help = """
    USAGE: vision-catalog products --category NAME [--service URL --odata-version 2|4 [--user NAME [--password-file F]] | --catalog FILE] [--json]

    Lists the products of one category. The name is always sent as a literal value.

    OPTIONS:
      --category NAME       the category, for example 'Notebooks'
    \(CatalogOptions.help)
      --json                print one JSON object instead of a table
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments, options: CatalogOptions.valued.union(["category"]), flags: ["json"])
    guard parsed.positionals.isEmpty else {
      throw CLIError.usage("unexpected argument '\(parsed.positionals[0])'")
    }
    let category = try parsed.required("category")
    let source = try CatalogOptions.source(from: parsed)
    let listing: ProductListing
    do {
      listing = try await source.makeProvider().products(inKnownCategory: category)
    } catch {
      throw CLIError.failure(error.description)
    }
    if parsed.has("json") {
      try JSONOutput.print(JSONShapes.Listing(listing))
    } else {
      print(ProductTable(listing.products).text)
      print("\(listing.products.count) products in '\(listing.category)' via \(listing.query)")
    }
  }
}
