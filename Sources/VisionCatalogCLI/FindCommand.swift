import Foundation
import VisionCatalog

/// `vision-catalog find IMAGE [catalog options] [model options] [--mapping FILE.json] [--json]`.
struct FindCommand: Subcommand {
  /// `--mapping FILE.json`: the catalog category of each model label.
  static let mapping = Option.text(
    "mapping", "FILE.json",
    help: #"the category of each model label, {"label": "category"} (default: the ImageNet "#
      + "table for an ImageNet model, else each label is its own category)")

  /// `--index INDEX`: a visual-search index of the catalog's pictures.
  static let index = Option.text(
    "index", "INDEX",
    help: "a visual-search index of the catalog's pictures (`vision-catalog index`): adds the "
      + "most similar products and ranks the category's products by similarity")

  let name = "find"
  let summary = "Classify a photo and list the catalog's products for its category."
  let synopsis = "IMAGE"
  let discussion = """
    Reads the barcodes in IMAGE first: when one carries a GTIN (EAN, UPC, ITF-14, GS1 data or
    a GS1 Digital Link QR code) that the catalog holds, that is the product. Otherwise it
    classifies IMAGE, maps its best labels to a catalog category (trying the next label when
    one maps to nothing or finds no products) and lists that category's products. Without
    --service or --catalog it uses the bundled sample catalog. The catalog's GTIN property is
    found in $metadata (GTIN, EAN, UPC, ProductStandardID and the like) or named with
    --gtin-property. With --index it also embeds IMAGE, lists the products whose pictures are
    closest (from any category) and orders the category's products by similarity.
    """
  let options =
    ModelOptions.all + CatalogOptions.all + [Self.mapping, Self.index, JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let path = try parsed.singlePositional(named: synopsis)
    let top = parsed.integer(ModelOptions.top) ?? 5
    let selection = try CatalogOptions.source(from: parsed)
    // The photo is read and its header parsed once, here, so a file that is not an image fails
    // before the model is loaded.
    let photo = try ImageFiles.load(path)
    let model = try ModelOptions.load(from: parsed)
    let (provider, schema) = try await selection.connect()
    let mapping =
      try parsed.value(Self.mapping).map { (path) throws(CLIError) in
        try MappingFile.read(path, labels: model.labels)
      } ?? CategoryMapping.suggested(forLabels: model.labels)
    var finder = ProductFinder(
      model: model, mapping: mapping,
      provider: provider, schema: schema,
      classificationOptions: ClassificationOptions(maximumCount: top),
      preparation: ModelOptions.preparation(from: parsed))
    if let location = parsed.value(Self.index) {
      try await Self.use(location, in: &finder, threads: parsed.integer(ModelOptions.threads))
    }
    let result: ProductSearchResult
    do {
      result = try await finder.find(photo)
    } catch {
      throw CLIError.failure(error.message)
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.Find(result))
    } else {
      Self.printTable(result)
    }
  }

  /// Opens the index and has the finder search it (`find` and `serve`).
  static func use(_ location: String, in finder: inout ProductFinder, threads: Int?)
    async throws(CLIError)
  {
    let index: ProductIndex
    do {
      index = try await ProductIndex.open(location, threadCount: threads)
    } catch {
      throw CLIError.failure("cannot open the index \(location): \(error.message)")
    }
    guard index.count > 0 else {
      throw CLIError.failure("the index \(location) is empty or does not exist")
    }
    do {
      try finder.useIndex(index, threadCount: threads)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  /// Prints the classifications, the category chosen and its products as text.
  private static func printTable(_ result: ProductSearchResult) {
    if result.provenance == .barcode, let barcode = result.barcode {
      print(
        "barcode: \(barcode.symbology.rawValue) \(barcode.gtin.map { "GTIN \($0)" } ?? barcode.text)\n"
      )
      print(ProductTable(result.products).text)
      print("\n\(result.products.count) products via \(result.query)")
      return
    }
    for classification in result.classifications {
      print(ClassificationLine(classification).text)
    }
    let chosen = result.categoryAttempts.first { $0.outcome == .chosen }
    print("\ncategory: \(result.category) (from '\(chosen?.label ?? "?")')\n")
    print(ProductTable(result.products).text)
    print("\n\(result.products.count) products via \(result.query)")
    if let similar = result.similar {
      print("\nmost similar:")
      for (rank, match) in similar.enumerated() {
        print(
          String(format: "%2d  %.4f  ", rank + 1, match.score) + match.productId
            + (match.name.isEmpty ? "" : "  \(match.name)")
            + (match.category.isEmpty ? "" : "  [\(match.category)]"))
      }
    }
  }
}
