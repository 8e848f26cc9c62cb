public import Barcodes
public import CatalogClient
public import ClassifierKit
public import Foundation
public import ImagePipeline
public import VisualSearch

/// The main job: classify a photo, map its best labels to a catalog category, and fetch that
/// category's products; or, when the photo shows a barcode whose GTIN the catalog holds, that
/// exact product.
///
/// Any `ImageClassificationModel` works the same way (the finder never asks which type it is), so
/// tests swap in a `DummyClassifier` and an `OfflineCatalogProvider` with one line each. Labels are
/// tried best first: a label that maps to no category, or to a category without products, falls
/// through to the next one (the seeds' apps tried their top two). A failing request is reported at once, never skipped.
public struct ProductFinder: Sendable {
  /// The classifier.
  public let model: any ImageClassificationModel
  /// The map from the model's labels to catalog categories.
  public let mapping: CategoryMapping
  /// The catalog.
  public let provider: any CatalogProvider
  /// Where the catalog keeps its products; ESPM's shape by default (see
  /// `CatalogProvider/catalogSchema(entitySet:categoryProperty:)` to read a service's).
  public var schema: CatalogSchema
  /// How many labels to consider and how they are scored; top 5 softmax by default.
  public var classificationOptions: ClassificationOptions
  /// How photos are decoded and prepared: limits, JPEG reduction, orientation override.
  public var preparation: PreparationOptions
  /// Reads the photo's barcodes before the category is looked for; `nil` reads none.
  ///
  /// A barcode is looked up only when ``schema`` names the catalog's GTIN property (as
  /// `CatalogProvider/catalogSchema(entitySet:categoryProperty:gtinProperty:)` finds it).
  public var barcodeReader: BarcodeReader?
  /// How many of the most similar products ``find(_:)`` returns when a visual-search index is
  /// in use (``useIndex(_:threadCount:)``).
  public var similarCount = 5
  /// The index and the printer of its queries, when one is in use.
  private var visualSearch: (index: ProductIndex, printer: FeaturePrinter)?

  /// The limits for decoding photos given as bytes or files; shorthand for
  /// `preparation.decoding`.
  public var decodingOptions: DecodingOptions {
    get { preparation.decoding }
    set { preparation.decoding = newValue }
  }

  /// Creates a finder.
  ///
  /// - Parameters:
  ///   - model: The classifier.
  ///   - mapping: The label-to-category map; identity when the labels are categories.
  ///   - provider: The catalog.
  ///   - schema: Where the catalog keeps its products.
  ///   - classificationOptions: How many labels to consider; top 5 by default.
  ///   - preparation: How photos are decoded and prepared; the defaults suit untrusted input.
  ///   - barcodeReader: Reads barcodes beside the classification, `fast` by default (a barcode
  ///     that fills a good part of the photo); `nil` reads none.
  public init(
    model: any ImageClassificationModel, mapping: CategoryMapping = .identity,
    provider: any CatalogProvider, schema: CatalogSchema = .espm,
    classificationOptions: ClassificationOptions = .default,
    preparation: PreparationOptions = .default,
    barcodeReader: BarcodeReader? = BarcodeReader(effort: .fast)
  ) {
    self.barcodeReader = barcodeReader
    self.model = model
    self.mapping = mapping
    self.provider = provider
    self.schema = schema
    self.classificationOptions = classificationOptions
    self.preparation = preparation
  }

  /// Searches a visual-search index too: ``find(_:)`` then returns the ``similarCount``
  /// products whose pictures are closest to the photo (from any category) as
  /// ``ProductSearchResult/similar``, and the category's products ranked by similarity.
  ///
  /// - Parameters:
  ///   - index: An index `ProductIndexer` built.
  ///   - threadCount: Threads one query print may use; `nil` means every active processor.
  /// - Throws: ``VisionCatalogError`` with stage `search` when the index's printer cannot be
  ///   made (another backbone than this installation's, or no weights).
  public mutating func useIndex(_ index: ProductIndex, threadCount: Int? = nil)
    throws(VisionCatalogError)
  {
    do {
      let printer = try FeaturePrinter(identity: index.embedder, threadCount: threadCount)
      visualSearch = (index, printer)
    } catch {
      throw VisionCatalogError(
        .search, "cannot search the index \(index.location): \(error.message)", underlying: error)
    }
  }

  /// Finds the products for a photo: a file, encoded bytes or a decoded image.
  ///
  /// The photo is read once. Its barcodes are read (when ``schema`` names a GTIN property) while
  /// the model classifies it, as its `inputSpec` says (a large JPEG decoded only as far as the
  /// input needs), on a worker of the shared `ComputeExecutor`. The first GTIN the catalog holds
  /// gives that product, with provenance ``ProductSearchResult/Provenance/barcode``; otherwise
  /// the labels are tried best first against the catalog.
  ///
  /// - Parameter source: The photo.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage: `image` when the photo cannot be
  ///   read or decoded, `classification`, `catalog` or `noCategory`.
  public func find(_ source: ImageSource) async throws(VisionCatalogError) -> ProductSearchResult {
    let photo: ImageSource
    do {
      photo = try source.loaded(using: ImageDecoder(options: preparation.decoding))
    } catch {
      throw VisionCatalogError(.image, "\(source.name): \(error.message)", underlying: error)
    }
    // The barcodes are read and the photo embedded while the model classifies: the three share
    // nothing but the bytes.
    async let reading = timedBarcodes(photo)
    async let printing = timedPrint(photo)
    let report = try await classify(photo)
    let (barcodes, barcodeTime) = try await reading.get()
    let (print, printTime) = try await printing.get()
    var result: ProductSearchResult
    if let found = try await lookUp(barcodes, report: report) {
      result = found
    } else {
      result = try await search(report)
      result.barcode = barcodes.first { $0.gtin != nil }
    }
    result.timings.barcodes = barcodeTime
    if let print, let search = visualSearch {
      let start = ContinuousClock.now
      try await rankBySimilarity(&result, print: print, index: search.index)
      result.timings.similarity = printTime + (ContinuousClock.now - start)
    }
    return result
  }

  /// The products whose pictures are closest to a photo, from any category, best first: the
  /// index in use searched with the photo's print; `nil` when no index is in use.
  package func similarProducts(_ source: ImageSource, top: Int) async throws(VisionCatalogError)
    -> [ProductMatch]?
  {
    guard let index = visualSearch?.index else { return nil }
    let photo: ImageSource
    do {
      photo = try source.loaded(using: ImageDecoder(options: preparation.decoding))
    } catch {
      throw VisionCatalogError(.image, "\(source.name): \(error.message)", underlying: error)
    }
    guard let print = try await timedPrint(photo).get().0 else { return nil }
    do {
      return try await index.search(print.values, top: top)
    } catch {
      throw VisionCatalogError(
        .search, "cannot search the index \(index.location): \(error.message)", underlying: error)
    }
  }

  /// The photo's query print for the index in use, and how long it took; `nil` without one.
  ///
  /// The print runs on a `ComputeExecutor` worker, as the classification does.
  private func timedPrint(_ photo: ImageSource) async -> Result<
    (ImageFeaturePrint?, Duration), VisionCatalogError
  > {
    guard let printer = visualSearch?.printer else { return .success((nil, .zero)) }
    do {
      return try await ComputeExecutor.shared.run { Self.queryPrint(photo, with: printer) }
    } catch {
      return .failure(VisionCatalogError(.classification, error.message, underlying: error))
    }
  }

  /// The photo's query print and how long it took, on the calling thread.
  private static func queryPrint(_ photo: ImageSource, with printer: FeaturePrinter) -> Result<
    (ImageFeaturePrint?, Duration), VisionCatalogError
  > {
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let print = try printer.featurePrint(of: photo, role: .query)
      return .success((print, clock.now - start))
    } catch {
      return .failure(
        VisionCatalogError(.image, "\(photo.name): \(error.message)", underlying: error))
    }
  }

  /// Adds the most similar products and orders the category's products by the similarity of
  /// their closest picture (products without a picture in the index keep their order, after).
  private func rankBySimilarity(
    _ result: inout ProductSearchResult, print: ImageFeaturePrint, index: ProductIndex
  ) async throws(VisionCatalogError) {
    do {
      result.similar = try await index.search(print.values, top: similarCount)
      let scored = try await index.search(
        print.values, top: max(result.products.count, 1),
        among: Set(result.products.map(\.productId)))
      let scores = Dictionary(
        scored.map { ($0.productId, $0.score) }, uniquingKeysWith: { first, _ in first })
      let ranked = result.products.enumerated().sorted { a, b in
        switch (scores[a.element.productId], scores[b.element.productId]) {
        case (let x?, let y?): x != y ? x > y : a.offset < b.offset
        case (.some, .none): true
        case (.none, .some): false
        case (.none, .none): a.offset < b.offset
        }
      }
      result.products = ranked.map(\.element)
    } catch {
      throw VisionCatalogError(
        .search, "cannot search the index \(index.location): \(error.message)", underlying: error)
    }
  }

  /// The photo's barcodes and how long reading them took.
  ///
  /// The reading runs on a `ComputeExecutor` worker, as the classification does, so that it
  /// holds no task's thread and a full queue refuses it too.
  private func timedBarcodes(_ photo: ImageSource) async -> Result<
    ([Barcode], Duration), VisionCatalogError
  > {
    guard barcodeReader != nil, schema.gtin != nil else { return .success(([], .zero)) }
    let finder = self
    do {
      return try await ComputeExecutor.shared.run {
        let clock = ContinuousClock()
        let start = clock.now
        return Result { () throws(VisionCatalogError) in
          (try finder.readBarcodes(photo), clock.now - start)
        }
      }
    } catch {
      return .failure(VisionCatalogError(.classification, error.message, underlying: error))
    }
  }

  /// The photo's barcodes, top to bottom; none without a reader, or when the schema names no
  /// GTIN property to look them up in.
  private func readBarcodes(_ photo: ImageSource) throws(VisionCatalogError) -> [Barcode] {
    guard var reader = barcodeReader, schema.gtin != nil else { return [] }
    reader.decoding = preparation.decoding
    do {
      return try reader.read(photo)
    } catch {
      throw VisionCatalogError(
        .image, "\(photo.name): \(error.underlying?.message ?? error.message)", underlying: error)
    }
  }

  /// The model's report on the photo.
  private func classify(_ photo: ImageSource) async throws(VisionCatalogError)
    -> ClassificationReport
  {
    do {
      return try await model.classify(
        photo, preparation: preparation, options: classificationOptions)
    } catch {
      if error.code == .invalidImage, let decoding = error.underlying as? ImageDecodingError {
        throw VisionCatalogError(
          .image, "\(photo.name): \(decoding.message)", underlying: decoding)
      }
      throw VisionCatalogError(
        .classification, "classification failed: \(error)", underlying: error)
    }
  }

  /// The first product a barcode's GTIN finds (at most four GTINs are asked for), or `nil`.
  private func lookUp(_ barcodes: [Barcode], report: ClassificationReport)
    async throws(VisionCatalogError) -> ProductSearchResult?
  {
    guard schema.gtin != nil else { return nil }
    let clock = ContinuousClock()
    let start = clock.now
    var asked: Set<GTIN> = []
    for barcode in barcodes {
      guard let gtin = barcode.gtin, asked.count < 4, asked.insert(gtin).inserted else { continue }
      let products: [Product]
      let query: String
      do {
        products = try await provider.products(withGTIN: gtin, schema: schema)
        query = try provider.describe(try schema.productsQuery(withGTIN: gtin))
      } catch {
        throw VisionCatalogError(.catalog, "catalog query failed: \(error)", underlying: error)
      }
      guard let first = products.first else { continue }
      var result = ProductSearchResult(
        classification: report, category: first.categoryName ?? "", categoryAttempts: [],
        query: query, products: products,
        timings: SearchTimings(classification: report.timings, catalog: clock.now - start))
      result.provenance = .barcode
      result.barcode = barcode
      return result
    }
    return nil
  }

  /// Finds the products for a photo file (PNG, JPEG, WebP, HEIC or AVIF, sniffed from its bytes).
  ///
  /// - Parameter url: The photo file.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(contentsOf url: URL) async throws(VisionCatalogError) -> ProductSearchResult {
    try await find(.file(url))
  }

  /// Finds the products for an encoded photo (PNG, JPEG, WebP, HEIC or AVIF, sniffed from its bytes).
  ///
  /// - Parameter data: The photo's bytes.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(imageData data: Data) async throws(VisionCatalogError) -> ProductSearchResult {
    try await find(.data(data))
  }

  /// Finds the products for a decoded photo; its EXIF orientation is applied by the model.
  ///
  /// - Parameter image: The photo.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(image: RasterImage) async throws(VisionCatalogError) -> ProductSearchResult {
    try await find(.image(image))
  }

  /// Tries the labels best first and fetches the products of the first category that has some.
  private func search(_ report: ClassificationReport) async throws(VisionCatalogError)
    -> ProductSearchResult
  {
    let clock = ContinuousClock()
    let start = clock.now
    let classifications = report.classifications
    var attempts: [ProductSearchResult.CategoryAttempt] = []
    var tried: Set<String> = []
    for classification in classifications {
      guard let category = mapping.category(for: classification) else {
        attempts.append(.init(label: classification.label, category: nil, outcome: .unmapped))
        continue
      }
      guard tried.insert(category).inserted else {
        attempts.append(
          .init(label: classification.label, category: category, outcome: .alreadyTried))
        continue
      }
      let products: [Product]
      let query: String
      do {
        products = try await provider.products(inCategory: category, schema: schema)
        query = try provider.describe(try schema.productsQuery(inCategory: category))
      } catch {
        throw VisionCatalogError(.catalog, "catalog query failed: \(error)", underlying: error)
      }
      guard !products.isEmpty else {
        attempts.append(
          .init(label: classification.label, category: category, outcome: .noProducts))
        continue
      }
      attempts.append(.init(label: classification.label, category: category, outcome: .chosen))
      return ProductSearchResult(
        classification: report, category: category, categoryAttempts: attempts,
        query: query, products: products,
        timings: SearchTimings(classification: report.timings, catalog: clock.now - start))
    }
    if classifications.isEmpty {
      throw VisionCatalogError(
        .noCategory,
        "the model gave the photo no label: every confidence is below its minimum (a trained "
          + "model's unknown threshold)")
    }
    let labels = classifications.map { "'\($0.label)'" }.joined(separator: ", ")
    throw VisionCatalogError(
      .noCategory,
      "none of the top \(classifications.count) labels (\(labels)) maps to a catalog category "
        + "with products")
  }
}
