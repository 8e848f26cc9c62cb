import Foundation
import VisionCatalog

/// `vision-catalog serve [--host H] [--port P] [--queue-limit N] [--connections N] [model and
/// catalog options]`.
struct ServeCommand: Subcommand {
  /// `--host H`: the address to listen on.
  static let host = Option.text(
    "host", "H",
    help: "the address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for every "
      + "IPv4 address, :: for IPv6)")
  /// `--port P`: the port.
  static let port = Option.integer("port", "P", in: 0...65_535, help: "the port (default 8080)")
  /// `--queue-limit N`: photos that may wait for a worker before requests get 503.
  static let queueLimit = Option.integer(
    "queue-limit", "N", in: 0...1_000_000,
    help: "photos that may wait for a worker; beyond it a request gets 503 with Retry-After "
      + "(default: every request waits)")
  /// `--connections N`: connections open at once.
  static let connections = Option.integer(
    "connections", "N", in: 1...100_000,
    help: "connections open at once; more wait in the listen backlog (default 64)")

  let name = "serve"
  let summary = "Serve classify, find, barcodes and categories over HTTP, with a web page."
  let synopsis = ""
  let discussion = """
    Routes: POST /v1/classify, /v1/find, /v1/barcodes and, with --index, /v1/similar (the
    photo as the body or the multipart field `image`; the same JSON as --json), GET
    /v1/categories, /healthz, /readyz
    (200 once the model and catalog are loaded), /metrics (Prometheus) and / (a web page).
    SIGTERM or Ctrl-C stops accepting, finishes the requests in flight within 10 s and exits 0.
    """
  let options =
    [Self.host, Self.port, Self.queueLimit, Self.connections] + ModelOptions.all
    + CatalogOptions.all + [FindCommand.mapping, FindCommand.index]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    try parsed.rejectPositionals()
    let host = parsed.value(Self.host) ?? "127.0.0.1"
    let server: CatalogServer
    do {
      server = try CatalogServer(
        host: host, port: parsed.integer(Self.port) ?? 8080,
        connections: parsed.integer(Self.connections))
    } catch {
      throw CLIError.failure(error.message)
    }
    let shown = host.contains(":") ? "[\(host)]" : host
    StandardError.write("vision-catalog: listening on http://\(shown):\(server.port)/\n")
    if let limit = parsed.integer(Self.queueLimit) {
      var computeLimits = ComputeExecutor.shared.limits
      computeLimits.maximumQueuedCount = limit
      ComputeExecutor.shared.limits = computeLimits
    }
    let finder: ProductFinder
    do {
      finder = try await Self.finder(parsed)
    } catch {
      await server.stop(within: .zero)
      throw error
    }
    server.ready(finder)
    StandardError.write("vision-catalog: ready\n")
    let signal = await server.runUntilTerminated(drain: .seconds(10))
    StandardError.write("vision-catalog: \(signal): stopped\n")
  }

  /// The model, catalog and mapping `find` would use.
  private static func finder(_ parsed: CommandLineArguments) async throws(CLIError) -> ProductFinder
  {
    let top = parsed.integer(ModelOptions.top) ?? 5
    let selection = try CatalogOptions.source(from: parsed)
    let model = try ModelOptions.load(from: parsed)
    let (provider, schema) = try await selection.connect()
    let mapping =
      try parsed.value(FindCommand.mapping).map { (path) throws(CLIError) in
        try MappingFile.read(path, labels: model.labels)
      } ?? CategoryMapping.suggested(forLabels: model.labels)
    var finder = ProductFinder(
      model: model, mapping: mapping, provider: provider, schema: schema,
      classificationOptions: ClassificationOptions(maximumCount: top),
      preparation: ModelOptions.preparation(from: parsed))
    if let location = parsed.value(FindCommand.index) {
      try await FindCommand.use(
        location, in: &finder, threads: parsed.integer(ModelOptions.threads))
    }
    return finder
  }
}
