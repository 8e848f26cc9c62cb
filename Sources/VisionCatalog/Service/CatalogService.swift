import Foundation
package import WebService

/// The HTTP service `vision-catalog serve` runs: the command line's jobs as routes, answering
/// with the same JSON objects as `--json`.
///
/// - `POST /v1/classify`, `/v1/find` and `/v1/barcodes`: the photo as the raw body or the
///   `multipart/form-data` field `image`.
/// - `GET /v1/categories`, `/healthz`, `/readyz`, `/metrics` (Prometheus text) and `/` (the web
///   page).
///
/// Photos go through the process-wide `ComputeExecutor`: over its queue limit a request gets 503
/// with `Retry-After`, and a request whose client has gone is cancelled. Errors are
/// `{"error": {"code", "message"}}`; a photo that cannot be read is the client's mistake (400).
package struct CatalogService: Sendable {
  /// The finder that classifies photos and looks their products up.
  package let finder: ProductFinder
  /// The request counts and latencies `/metrics` reports.
  package let metrics: ServiceMetrics
  /// The unanswered requests, for `/metrics`; `nil` when unknown.
  package var inFlight: @Sendable () -> Int = { 0 }
  private let executor = ComputeExecutor.shared

  /// A service over `finder`.
  package init(finder: ProductFinder, metrics: ServiceMetrics) {
    self.finder = finder
    self.metrics = metrics
  }

  /// Answers one request, and counts it in ``metrics``.
  package func respond(to request: WebRequest) async -> WebResponse {
    let clock = ContinuousClock()
    let start = clock.now
    let route = ServiceRoute(path: request.path)
    let response = await answer(request, route: route)
    metrics.record(
      route: route.label, status: response.status,
      seconds: JSONShapes.milliseconds(clock.now - start) / 1_000)
    return response
  }

  private func answer(_ request: WebRequest, route: ServiceRoute) async -> WebResponse {
    guard let route = route.known else {
      return ServiceFailure(404, "not_found", "no route \(request.path)").response
    }
    guard route.methods.contains(request.method) else {
      var response = ServiceFailure(
        405, "method_not_allowed",
        "\(route.rawValue) takes \(route.methods.joined(separator: ", "))"
      ).response
      response.headers.append(("Allow", route.methods.joined(separator: ", ")))
      return response
    }
    do {
      switch route {
      case .classify: return try await classify(request)
      case .find: return try await find(request)
      case .barcodes: return try await barcodes(request)
      case .similar: return try await similar(request)
      case .categories: return try await categories()
      case .health: return Self.json(200, ["status": "ok"])
      case .ready: return Self.json(200, ["status": "ready"])
      case .metrics: return metricsText()
      case .page: return ServicePage.response
      }
    } catch {
      return error.response
    }
  }

  private func photo(_ request: WebRequest) throws(ServiceFailure) -> ImageSource {
    if let problem = request.readError {
      throw ServiceFailure(400, problem, "the multipart body has no complete `image` field")
    }
    guard !request.body.isEmpty else {
      throw ServiceFailure(400, "empty_body", "send the photo as the body or the `image` field")
    }
    return ImageSource.data(request.body, name: "the photo")
  }

  private func classify(_ request: WebRequest) async throws(ServiceFailure) -> WebResponse {
    let source = try photo(request)
    let report: ClassificationReport
    do {
      report = try await finder.model.classify(
        source, preparation: finder.preparation, options: finder.classificationOptions)
    } catch {
      throw ServiceFailure(error)
    }
    return try Self.encoded(JSONShapes.Classify(report))
  }

  private func find(_ request: WebRequest) async throws(ServiceFailure) -> WebResponse {
    let source = try photo(request)
    let result: ProductSearchResult
    do {
      result = try await finder.find(source)
    } catch {
      throw ServiceFailure(error)
    }
    return try Self.encoded(JSONShapes.Find(result))
  }

  private func barcodes(_ request: WebRequest) async throws(ServiceFailure) -> WebResponse {
    let source = try photo(request)
    var reader = finder.barcodeReader ?? BarcodeReader()
    reader.decoding = finder.preparation.decoding
    let outcome: Result<[Barcode], BarcodeError>
    do {
      outcome = try await executor.run { [reader] in
        Result { () throws(BarcodeError) in try reader.read(source) }
      }
    } catch {
      throw ServiceFailure(error)
    }
    switch outcome {
    case .success(let barcodes): return try Self.encoded(JSONShapes.BarcodeList(barcodes))
    case .failure(let error): throw ServiceFailure(error)
    }
  }

  private func similar(_ request: WebRequest) async throws(ServiceFailure) -> WebResponse {
    let source = try photo(request)
    let matches: [ProductMatch]?
    do {
      matches = try await finder.similarProducts(source, top: finder.similarCount)
    } catch {
      throw ServiceFailure(error)
    }
    guard let matches else {
      throw ServiceFailure(404, "no_index", "the service was started without --index")
    }
    return try Self.encoded(JSONShapes.Matches(matches))
  }

  private func categories() async throws(ServiceFailure) -> WebResponse {
    let categories: [ProductCategory]
    do {
      categories = try await finder.provider.categories(schema: finder.schema)
    } catch {
      throw ServiceFailure(502, "catalog_failed", error.message)
    }
    return try Self.encoded(JSONShapes.CategoryList(categories))
  }

  private func metricsText() -> WebResponse {
    let statistics = executor.statistics
    let gauges: [MetricFamily] = [
      .single(
        "visioncatalog_queue_depth", "Photos waiting for a worker.", .gauge,
        Double(statistics.queuedCount)),
      .single(
        "visioncatalog_in_flight", "Requests read and not yet answered.", .gauge,
        Double(inFlight())),
      .single(
        "visioncatalog_running", "Photos a worker is decoding or classifying.", .gauge,
        Double(statistics.runningCount)),
      .single(
        "visioncatalog_overloaded_total", "Requests refused because the queue was full.",
        .counter, Double(statistics.overloadedCount)),
      .single(
        "visioncatalog_cancelled_total", "Requests cancelled while waiting (their client left).",
        .counter, Double(statistics.cancelledCount)),
      Self.batchSizes(statistics),
    ]
    return WebResponse(
      status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
      body: Array(metrics.render(extra: gauges).utf8))
  }

  /// The photos per dynamically batched network call, as a histogram.
  private static func batchSizes(_ statistics: ComputeStatistics) -> MetricFamily {
    var family = MetricFamily(
      name: "visioncatalog_batch_size", help: "Photos per dynamically batched network call.",
      kind: .histogram, samples: [])
    for bound in [1, 2, 4, 8, 16, 32] {
      let count = statistics.batchSizes.filter { $0.key <= bound }.values.reduce(0, +)
      family.samples.append(("_bucket", [("le", String(bound))], Double(count)))
    }
    family.samples.append(("_bucket", [("le", "+Inf")], Double(statistics.batchCount)))
    family.samples.append(("_sum", [], Double(statistics.batchedPhotoCount)))
    family.samples.append(("_count", [], Double(statistics.batchCount)))
    return family
  }

  static func json(_ status: Int, _ object: [String: String]) -> WebResponse {
    (try? encoded(object, status: status)) ?? WebResponse.json(status, Array("{}".utf8))
  }

  static func encoded(_ value: some Encodable, status: Int = 200) throws(ServiceFailure)
    -> WebResponse
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      return WebResponse.json(status, Array(try encoder.encode(value)))
    } catch {
      throw ServiceFailure(500, "encoding_failed", "cannot encode the answer as JSON")
    }
  }
}
