import Foundation
import VisionCatalog

/// `vision-catalog index (--photos DIR | --service URL ... | --catalog FILE | --embeddings E.npy
/// --ids IDS.txt) --out INDEX [--json]`.
struct IndexCommand: Subcommand {
  static let photos = Option.text(
    "photos", "DIR", help: "a folder with one subfolder of pictures per product id")
  static let embeddings = Option.text(
    "embeddings", "E.npy", help: "feature prints made elsewhere: an [N, D] array")
  static let ids = Option.text(
    "ids", "IDS.txt", help: "with --embeddings: one product id per line, one line per row")
  static let out = Option.text(
    "out", "INDEX", help: "the index file, or postgresql:// URL, to create or update")

  let name = "index"
  let summary = "Build or update a visual-search index of a catalog's product pictures."
  let synopsis = ""
  let discussion = """
    Embeds each product picture as a feature print and writes them to INDEX, one
    memory-mapped, checksummed file that `similar` and `find --index` search. The pictures
    come from a catalog (--service or --catalog: each product's picture, with its name and
    category) or from --photos DIR (DIR/<product id>/<picture>).

    Updates are incremental: pictures whose bytes have not changed keep their prints, new or
    changed ones are embedded, and pictures of products no longer there are dropped. The
    index is replaced in one step, so an interrupted update leaves the old index; prints made
    before the interruption are kept in INDEX.journal and not made again.

    --embeddings E.npy --ids IDS.txt indexes vectors made elsewhere instead (row i belongs to
    the product on line i), replacing the index's content.
    """
  let options =
    [Self.photos] + CatalogOptions.all + [
      Self.embeddings, Self.ids, Self.out, ModelOptions.threads, JSONOutput.option,
    ]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    try parsed.rejectPositionals()
    let location = try parsed.required(Self.out)
    let report: ProductIndexer.Report
    if let embeddings = parsed.value(Self.embeddings) {
      report = try await Self.indexEmbeddings(embeddings, parsed: parsed, into: location)
    } else {
      report = try await Self.indexPictures(parsed, into: location)
    }
    for photo in report.skipped.prefix(20) {
      StandardError.write("skipped \(photo.name) (\(photo.label)): \(photo.reason)\n")
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.IndexReport(report))
    } else {
      print(
        "\(report.index): \(report.products) products, \(report.pictures) pictures "
          + "(\(report.added) added, \(report.removed) removed, \(report.unchanged) unchanged, "
          + "\(report.skipped.count) skipped)")
    }
  }

  private static func indexEmbeddings(
    _ path: String, parsed: CommandLineArguments, into location: String
  ) async throws(CLIError) -> ProductIndexer.Report {
    guard parsed.value(photos) == nil, parsed.value(CatalogOptions.service) == nil,
      parsed.value(CatalogOptions.catalog) == nil
    else {
      throw CLIError.usage("\(embeddings) cannot be combined with \(photos) or a catalog")
    }
    let idsPath = try parsed.required(ids)
    let text: String
    do {
      text = try String(contentsOfFile: idsPath, encoding: .utf8)
    } catch {
      throw CLIError.failure("cannot read \(idsPath): \(error.localizedDescription)")
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let list = lines.last == "" ? Array(lines.dropLast()) : lines
    do {
      return try await ProductIndexer.index(
        embeddings: URL(fileURLWithPath: path), ids: list, into: location)
    } catch {
      throw CLIError.failure(error.message)
    }
  }

  private static func indexPictures(_ parsed: CommandLineArguments, into location: String)
    async throws(CLIError) -> ProductIndexer.Report
  {
    if parsed.value(ids) != nil { throw ids.usageError("needs \(embeddings)") }
    let printer: FeaturePrinter
    do {
      printer = try FeaturePrinter(threadCount: parsed.integer(ModelOptions.threads))
    } catch {
      throw CLIError.failure(error.message)
    }
    let indexer = ProductIndexer(printer: printer)
    let progress = Locked(BatchProgress("index", total: 0))
    let step: @Sendable (Int, Int) -> Void = { done, total in
      progress.withLock { state in
        if done == 1 { state = BatchProgress("index", total: total) }
        state.advance(failed: false)
      }
    }
    do {
      if let folder = parsed.value(photos) {
        guard parsed.value(CatalogOptions.service) == nil,
          parsed.value(CatalogOptions.catalog) == nil
        else { throw CLIError.usage("\(photos) cannot be combined with a catalog") }
        let report = try await indexer.index(
          photos: URL(fileURLWithPath: folder), into: location, progress: step)
        progress.withLock { $0.finish() }
        return report
      }
      let selection = try CatalogOptions.source(from: parsed)
      guard selection.source != .bundled else {
        throw CLIError.usage(
          "give \(photos), \(CatalogOptions.service) or \(CatalogOptions.catalog): the bundled "
            + "catalog has no pictures")
      }
      let (provider, schema) = try await selection.connect()
      var headers: [String: String] = [:]
      if let authorization = selection.credentials?.authorization {
        headers["Authorization"] = authorization.headerValue
      }
      let report = try await indexer.index(
        catalog: selection.source, provider: provider, schema: schema, pictureHeaders: headers,
        into: location, progress: step)
      progress.withLock { $0.finish() }
      return report
    } catch let error as CLIError {
      throw error
    } catch let error as VisionCatalogError {
      throw CLIError.failure(error.message)
    } catch {
      throw CLIError.failure(from: error)
    }
  }
}
