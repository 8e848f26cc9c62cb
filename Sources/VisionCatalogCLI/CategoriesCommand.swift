import Foundation
import VisionCatalog

/// `vision-catalog categories [catalog options] [--json]`.
struct CategoriesCommand: Subcommand {
  let name = "categories"
  let summary = "List the catalog's categories with their product counts."
  let help = """
    USAGE: vision-catalog categories \(CatalogOptions.usage) [--json]

    Lists the categories the products are filtered on, with how many products each has, so a
    --mapping file can name them. With a category entity set (such as ProductCategories or
    Northwind's Categories) its categories are listed and each is counted, so empty ones show
    as 0; otherwise the products are paged through and counted.

    OPTIONS:
    \(CatalogOptions.help)
      --json                print {"categories": [{"name", "count"}]} instead of a table
    """

  /// The JSON object `--json` prints.
  private struct Output: Encodable {
    let categories: [CategoryCount]
  }

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments, options: CatalogOptions.valued, flags: ["json"])
    guard parsed.positionals.isEmpty else {
      throw CLIError.usage("unexpected argument '\(parsed.positionals[0])'")
    }
    let (provider, schema) = try await CatalogOptions.source(from: parsed).connect()
    let categories: [CategoryCount]
    do {
      categories = try await provider.categories(schema: schema)
    } catch {
      throw CLIError.failure(error.description)
    }
    if parsed.has("json") {
      try JSONOutput.print(Output(categories: categories))
      return
    }
    let width = max(8, categories.map(\.name.count).max() ?? 0)
    print("CATEGORY" + String(repeating: " ", count: width - 8) + "  PRODUCTS")
    for category in categories {
      let count = String(category.count)
      print(
        category.name + String(repeating: " ", count: width - category.name.count) + "  "
          + String(repeating: " ", count: max(0, 8 - count.count)) + count)
    }
    print("\(categories.count) categories in \(schema.entitySet) by \(schema.category)")
  }
}
