import Foundation
import VisionCatalog

/// `vision-catalog products --category NAME [catalog options] [--json]`.
struct ProductsCommand: Subcommand {
  /// `--category NAME`: the category whose products are listed.
  static let category = Option.text(
    "category", "NAME", isRequired: true, help: "the category, for example 'Notebooks'")

  let name = "products"
  let summary = "List the products of one catalog category."
  let synopsis = ""
  let discussion = """
    Lists the products of one category. The name is always sent as a literal value. A
    service's catalog schema (where its products and their category are) is read from its
    $metadata; give --entity-set and --category-property, or --schema, when its names are not
    recognized.
    """
  let options = [Self.category] + CatalogOptions.all + [JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    try parsed.rejectPositionals()
    let category = try parsed.required(Self.category)
    let (provider, schema) = try await CatalogOptions.source(from: parsed).connect()
    let products: [Product]
    let query: String
    do {
      products = try await provider.products(inKnownCategory: category, schema: schema)
      query = try provider.describe(try schema.productsQuery(inCategory: category))
    } catch {
      throw CLIError.failure(error.description)
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.Listing(category: category, query: query, products: products))
    } else {
      print(ProductTable(products).text)
      print("\(products.count) products in '\(category)' via \(query)")
    }
  }
}
