import Foundation
import VisionCatalog

/// `vision-catalog find IMAGE [catalog options] [--model default|FILE] [--top K] [--exact] [--json]`.
struct FindCommand: Subcommand {
  let name = "find"
  let summary = "Classify a photo and list the catalog's products for its category."
  let help = """
    USAGE: vision-catalog find IMAGE \(CatalogOptions.usage) [--model default|FILE] [--threads N] [--mapping FILE.json] [--top K] [--exact] [--json]

    Classifies IMAGE, maps its best labels to a catalog category (trying the next label when
    one maps to nothing or finds no products) and lists that category's products. Without
    --service or --catalog it uses the bundled sample catalog.

    OPTIONS:
    \(CatalogOptions.help)
    \(ModelOptions.help)
      --mapping FILE.json   the category of each model label, {"label": "category"}
                            (default: the ImageNet table for an ImageNet model, else each
                            label is its own category)
      --top K               how many labels to consider (default 5)
      --json                print one JSON object instead of a table
    """

  func run(_ arguments: [String]) async throws(CLIError) {
    let parsed = try CommandLineArguments(
      arguments,
      options: CatalogOptions.valued.union(ModelOptions.valued).union(["top", "mapping"]),
      flags: ModelOptions.flags.union(["json"]))
    let path = try parsed.singlePositional(named: "IMAGE")
    let top = try parsed.integer("top", in: 1...1_000) ?? 5
    let selection = try CatalogOptions.source(from: parsed)
    // The photo is read and its header parsed once, here, so a file that is not an image fails
    // before the model is loaded.
    let photo = try ImageFiles.load(path)
    let model = try ModelOptions.load(from: parsed)
    let (provider, schema) = try await selection.connect()
    let mapping =
      try parsed.value("mapping").map { (path) throws(CLIError) in
        try MappingFile.read(path, labels: model.labels)
      } ?? CategoryMapping.suggested(forLabels: model.labels)
    let finder = ProductFinder(
      model: model, mapping: mapping,
      provider: provider, schema: schema,
      classificationOptions: ClassificationOptions(maximumCount: top),
      preparation: try ModelOptions.preparation(from: parsed))
    let result: ProductSearchResult
    do {
      result = try await finder.find(photo)
    } catch {
      throw CLIError.failure(error.message)
    }
    if parsed.has("json") {
      try JSONOutput.print(JSONShapes.Find(result))
      return
    }
    for classification in result.classifications {
      print(ClassificationLine(classification).text)
    }
    let chosen = result.categoryAttempts.first { $0.outcome == .chosen }
    print("\ncategory: \(result.category) (from '\(chosen?.label ?? "?")')\n")
    print(ProductTable(result.products).text)
    print("\n\(result.products.count) products via \(result.query)")
  }
}
