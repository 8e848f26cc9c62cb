public import CatalogClient
public import ClassifierKit
public import Foundation
public import ImagePipeline

/// The main job: classify a photo, map its best labels to a catalog category, and fetch that
/// category's products.
///
/// Any `ImageClassificationModel` works, so tests swap in a `DummyClassifier` and an
/// `OfflineCatalogProvider` with one line each. Labels are tried best first: a label that
/// maps to no category, or to a category without products, falls through to the next one (the
/// seeds' apps tried their top two). A failing request is reported at once, never skipped.
public struct ProductFinder: Sendable {
  /// The classifier.
  public let model: any ImageClassificationModel
  /// The map from the model's labels to catalog categories.
  public let mapping: CategoryMapping
  /// The catalog.
  public let provider: any CatalogProvider
  /// How many labels to consider and how they are scored; top 5 softmax by default.
  public var classificationOptions: ClassificationOptions
  /// Limits for decoding photos given as bytes or files.
  public var decodingOptions: DecodingOptions

  /// Creates a finder.
  ///
  /// - Parameters:
  ///   - model: The classifier.
  ///   - mapping: The label-to-category map; identity when the labels are categories.
  ///   - provider: The catalog.
  ///   - classificationOptions: How many labels to consider; top 5 by default.
  ///   - decodingOptions: Limits for decoding photos.
  public init(
    model: any ImageClassificationModel, mapping: CategoryMapping = .identity,
    provider: any CatalogProvider, classificationOptions: ClassificationOptions = .default,
    decodingOptions: DecodingOptions = DecodingOptions()
  ) {
    self.model = model
    self.mapping = mapping
    self.provider = provider
    self.classificationOptions = classificationOptions
    self.decodingOptions = decodingOptions
  }

  /// Finds the products for a photo file (PNG or JPEG, sniffed from its bytes).
  ///
  /// - Parameter url: The photo file.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(contentsOf url: URL) async throws(VisionCatalogError) -> ProductSearchResult {
    if let network = encodedPhotoNetwork {
      return try await classifyEncodedAndFind(naming: url.path) { () throws(ClassificationError) in
        try network.report(forFileAt: url, options: classificationOptions)
      }
    }
    return try await decodeAndFind(naming: url.path) { decoder throws(ImageDecodingError) in
      try decoder.decode(contentsOf: url)
    }
  }

  /// Finds the products for an encoded photo (PNG or JPEG, sniffed from its bytes).
  ///
  /// - Parameter data: The photo's bytes.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(imageData data: Data) async throws(VisionCatalogError) -> ProductSearchResult {
    if let network = encodedPhotoNetwork {
      return try await classifyEncodedAndFind(naming: "the photo") {
        () throws(ClassificationError) in
        try network.report(for: data, options: classificationOptions)
      }
    }
    return try await decodeAndFind(naming: "the photo") { decoder throws(ImageDecodingError) in
      try decoder.decode(data)
    }
  }

  /// Finds the products for a decoded photo; its EXIF orientation is applied by the model.
  ///
  /// - Parameter image: The photo.
  /// - Returns: The products and the provenance of each step.
  /// - Throws: ``VisionCatalogError`` naming the failed stage.
  public func find(in image: RasterImage) async throws(VisionCatalogError) -> ProductSearchResult {
    try await find(in: image, decodeMilliseconds: nil)
  }

  /// The model when it is a `NetworkClassifier`, with ``decodingOptions``: it decodes encoded
  /// photos itself, so that a large JPEG can be decoded at the reduction its input allows.
  private var encodedPhotoNetwork: NetworkClassifier? {
    guard var network = model as? NetworkClassifier else { return nil }
    network.decodingOptions = decodingOptions
    return network
  }

  /// Lets the network decode and classify, then finds; `name` prefixes a decoding error.
  private func classifyEncodedAndFind(
    naming name: String, _ classify: () throws(ClassificationError) -> ClassificationReport
  ) async throws(VisionCatalogError) -> ProductSearchResult {
    let clock = ContinuousClock()
    let start = clock.now
    let report: ClassificationReport
    do {
      report = try classify()
    } catch {
      if error.code == .invalidImage, let decoding = error.underlying as? ImageDecodingError {
        throw VisionCatalogError(.image, "\(name): \(decoding.message)", underlying: decoding)
      }
      throw VisionCatalogError(
        .classification, "classification failed: \(error)", underlying: error)
    }
    let classified = clock.now
    let stages = report.timings.milliseconds
    let provenance = report.preprocessing
    return try await search(
      report.classifications,
      image: ProductSearchResult.ImageSummary(
        width: provenance.sourceWidth, height: provenance.sourceHeight,
        orientation: Int(provenance.orientation.rawValue)),
      crop: .init(provenance.cropRect),
      stageTimings: ["preprocess": stages["preprocess"], "inference": stages["inference"]]
        .compactMapValues { $0 },
      decodeMilliseconds: stages["decode"],
      classifyMilliseconds: Self.milliseconds(start.duration(to: classified))
        - (stages["decode"] ?? 0))
  }

  /// Decodes with ``decodingOptions``, timing it, then finds; `name` prefixes a decoding error.
  private func decodeAndFind(
    naming name: String, _ decode: (ImageDecoder) throws(ImageDecodingError) -> RasterImage
  ) async throws(VisionCatalogError) -> ProductSearchResult {
    let clock = ContinuousClock()
    let start = clock.now
    let image: RasterImage
    do {
      image = try decode(ImageDecoder(options: decodingOptions))
    } catch {
      throw VisionCatalogError(.image, "\(name): \(error.message)", underlying: error)
    }
    return try await find(
      in: image, decodeMilliseconds: Self.milliseconds(start.duration(to: clock.now)))
  }

  private func find(
    in image: RasterImage, decodeMilliseconds: Double?
  ) async throws(VisionCatalogError) -> ProductSearchResult {
    let clock = ContinuousClock()
    let start = clock.now
    let classifications: [Classification]
    var crop: ProductSearchResult.CropSummary?
    var stageTimings: [String: Double] = [:]
    do {
      if let network = model as? NetworkClassifier {
        let report = try network.report(for: image, options: classificationOptions)
        classifications = report.classifications
        crop = .init(report.preprocessing.cropRect)
        stageTimings["preprocess"] = report.timings.milliseconds["preprocess"]
        stageTimings["inference"] = report.timings.milliseconds["inference"]
      } else {
        classifications = try await model.classify(image: image, options: classificationOptions)
      }
    } catch {
      throw VisionCatalogError(
        .classification, "classification failed: \(error)", underlying: error)
    }
    return try await search(
      classifications, image: .init(image), crop: crop, stageTimings: stageTimings,
      decodeMilliseconds: decodeMilliseconds,
      classifyMilliseconds: Self.milliseconds(start.duration(to: clock.now)))
  }

  /// Tries the labels best first and fetches the products of the first category that has some.
  private func search(
    _ classifications: [Classification], image: ProductSearchResult.ImageSummary,
    crop: ProductSearchResult.CropSummary?, stageTimings: [String: Double],
    decodeMilliseconds: Double?, classifyMilliseconds: Double
  ) async throws(VisionCatalogError) -> ProductSearchResult {
    let clock = ContinuousClock()
    let start = clock.now
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
      let listing: ProductListing
      do {
        listing = try await provider.products(inCategory: category)
      } catch {
        throw VisionCatalogError(.catalog, "catalog query failed: \(error)", underlying: error)
      }
      guard !listing.products.isEmpty else {
        attempts.append(
          .init(label: classification.label, category: category, outcome: .noProducts))
        continue
      }
      attempts.append(.init(label: classification.label, category: category, outcome: .chosen))
      let catalog = Self.milliseconds(start.duration(to: clock.now))
      var timings = stageTimings.merging([
        "classify": classifyMilliseconds,
        "catalog": catalog,
        "total": classifyMilliseconds + catalog + (decodeMilliseconds ?? 0),
      ]) { _, new in new }
      timings["decode"] = decodeMilliseconds
      return ProductSearchResult(
        image: image, crop: crop, classifications: classifications, category: category,
        categoryAttempts: attempts, query: listing.query, products: listing.products,
        timingsMs: timings)
    }
    let labels = classifications.map { "'\($0.label)'" }.joined(separator: ", ")
    throw VisionCatalogError(
      .noCategory,
      "none of the top \(classifications.count) labels (\(labels)) maps to a catalog category "
        + "with products")
  }

  static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }
}
