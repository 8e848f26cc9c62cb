import Foundation
import VisionCatalog

/// `vision-catalog similar PHOTO --index INDEX [--top K] [--category NAME] [--json]`, and
/// `similar --index INDEX --embedding Q.npy [--top K] [--runs R] [--json]`.
struct SimilarCommand: Subcommand {
  static let index = Option.text(
    "index", "INDEX", help: "the index `vision-catalog index` wrote")
  static let top = Option.integer(
    "top", "K", in: 1...10_000, help: "how many products to print (default 5)")
  static let category = Option.text(
    "category", "NAME", help: "only products of this category")
  static let embedding = Option.text(
    "embedding", "Q.npy", help: "search with this feature print ([D] or [1, D]) instead of a photo")
  static let runs = Option.integer(
    "runs", "R", in: 1...100_000, help: "with --embedding: time R searches")

  let name = "similar"
  let summary = "Find the catalog products whose pictures look most like a photo."
  let synopsis = "[PHOTO]"
  let discussion = """
    Embeds PHOTO as the index's own feature printer does (its orientation applied) and prints
    the products whose pictures are closest, best first, each once: the cosine similarity of
    its closest picture (higher is closer), its id, name and category.

    With --embedding Q.npy it searches with a vector made elsewhere; with --runs R it times R
    searches and prints 'runs=R median_ms=X' on standard error, as infer does.
    """
  let options = [
    Self.index, Self.top, Self.category, Self.embedding, Self.runs, ModelOptions.threads,
    JSONOutput.option,
  ]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    let location = try parsed.required(Self.index)
    let threads = parsed.integer(ModelOptions.threads)
    let top = parsed.integer(Self.top) ?? 5
    let category = parsed.value(Self.category)
    let index: ProductIndex
    do {
      index = try await ProductIndex.open(location, threadCount: threads)
    } catch {
      throw CLIError.failure("cannot open the index \(location): \(error.message)")
    }
    guard index.count > 0 else { throw CLIError.failure("the index \(location) is empty") }
    let query: [Float]
    if let path = parsed.value(Self.embedding) {
      guard parsed.positionals.isEmpty else {
        throw CLIError.usage("give PHOTO or \(Self.embedding), not both")
      }
      query = try Self.vector(path)
    } else {
      if parsed.value(Self.runs) != nil { throw Self.runs.usageError("needs \(Self.embedding)") }
      let photo = try parsed.singlePositional(named: "PHOTO")
      query = try Self.featurePrint(photo, for: index, threads: threads)
    }
    let matches: [ProductMatch]
    do {
      if let runs = parsed.integer(Self.runs) {
        matches = try await Self.time(index, query, top: top, category: category, runs: runs)
      } else {
        matches = try await index.search(query, top: top, category: category)
      }
    } catch {
      throw CLIError.failure(error.message)
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.Matches(matches))
      return
    }
    for (rank, match) in matches.enumerated() {
      print(
        String(format: "%2d  %.4f  ", rank + 1, match.score) + match.productId
          + (match.name.isEmpty ? "" : "  \(match.name)")
          + (match.category.isEmpty ? "" : "  [\(match.category)]"))
    }
  }

  /// A `[D]` or `[1, D]` float array from a `.npy` file.
  private static func vector(_ path: String) throws(CLIError) -> [Float] {
    let tensor: Tensor
    do {
      tensor = try NPYFile.read(contentsOfFile: path)
    } catch {
      throw CLIError.failure("cannot read \(path): \(error.message)")
    }
    guard tensor.shape.count == 1 || (tensor.shape.count == 2 && tensor.shape[0] == 1) else {
      throw CLIError.failure("\(path) has shape \(tensor.shape), not [D] or [1, D]")
    }
    return tensor.scalars
  }

  /// The photo's query print, made by the printer the index names.
  private static func featurePrint(_ photo: String, for index: ProductIndex, threads: Int?)
    throws(CLIError) -> [Float]
  {
    let source = try ImageFiles.load(photo)
    do {
      let printer = try FeaturePrinter(identity: index.embedder, threadCount: threads)
      return try printer.featurePrint(of: source, role: .query).values
    } catch {
      throw CLIError.failure(
        "\(photo): \(error.underlying.map { "\($0)" } ?? error.message)")
    }
  }

  /// Runs `runs` searches, printing the median and fastest on standard error.
  private static func time(
    _ index: ProductIndex, _ query: [Float], top: Int, category: String?, runs: Int
  ) async throws(SearchError) -> [ProductMatch] {
    var matches: [ProductMatch] = []
    var times = RunTimes()
    for _ in 0..<runs {
      let start = ContinuousClock.now
      matches = try await index.search(query, top: top, category: category)
      times.record(ContinuousClock.now - start)
    }
    times.report("cpu=\(RunTimes.processorName)")
    return matches
  }
}
