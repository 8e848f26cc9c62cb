import Foundation
import VisionCatalog

/// `vision-catalog products --category NAME [catalog options] [--json]`.
struct ProductsCommand: Subcommand {
  let name = "products"
  let summary = "List the products of one catalog category."
  let help = """
    USAGE: vision-catalog products --category NAME \(CatalogOptions.usage) [--json]

    Lists the products of one category. The name is always sent as a literal value. A
    service's catalog schema (where its products and their category are) is read from its
    $metadata; give --entity-set and --category-property, or --schema, when its names are not
    recognized.

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
    let (provider, schema) = try await CatalogOptions.source(from: parsed).connect()
    let listing: ProductListing
    do {
      listing = try await provider.products(inKnownCategory: category, schema: schema)
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
