import Foundation
import VisionCatalog

/// `vision-catalog categories [catalog options] [--json]`.
struct CategoriesCommand: Subcommand {
  let name = "categories"
  let summary = "List the catalog's categories with their product counts."
  let synopsis = ""
  let discussion = """
    Lists the categories the products are filtered on, with how many products each has, so a
    --mapping file can name them. With a category entity set (such as ProductCategories or
    Northwind's Categories) its categories are listed and each is counted, so empty ones show
    as 0; otherwise the products are paged through and counted. With --json it prints
    {"categories": [{"name", "count"}]}.
    """
  let options = CatalogOptions.all + [JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    try parsed.rejectPositionals()
    let (provider, schema) = try await CatalogOptions.source(from: parsed).connect()
    let categories: JSONShapes.CategoryList
    do {
      categories = JSONShapes.CategoryList(try await provider.categories(schema: schema))
    } catch {
      throw CLIError.failure(error.description)
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(categories)
    } else {
      Self.printTable(categories.categories, schema: schema)
    }
  }

  /// Prints the categories and their counts as a table, then where they were counted.
  private static func printTable(_ categories: [JSONShapes.Category], schema: CatalogSchema) {
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
