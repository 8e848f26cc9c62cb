public import ImagePipeline
import NeuralCore

/// Embeds photos as ``ImageFeaturePrint``s for visual search: which catalog picture shows the
/// product in this photo.
///
/// The default printer is EfficientNet-Lite0's backbone, the network the default classifier
/// stands on, with its last feature map averaged (global average pooling). The recipe was
/// chosen by measuring retrieval on the Grocery Store Dataset (in-store phone photos searched
/// against the shop's studio pictures; `Docs/Search.md` has the figures):
/// - a catalog picture is embedded whole (its centered square, no margin cropped) and mirrored,
///   and the two prints averaged: products are photographed from either side;
/// - a query photo is embedded as the classifier sees it (the centered 224/256 crop), minus the
///   mean print of in-store photos, which removes what every shop photo has in common (shelves,
///   light, clutter) and leaves what tells products apart.
///
/// ``identity`` names the network and recipe; an index stores it, and ``init(identity:threadCount:)``
/// makes the same printer again to embed queries for that index.
public struct FeaturePrinter: Sendable {
  /// What a print is for: the two sides of a search are prepared differently.
  public enum Role: Sendable {
    /// A photo to search with.
    case query
    /// A catalog picture to search among.
    case catalog
  }

  /// The recipe's name and version in ``identity``.
  static let recipe = "lite0-gap-mirror-qcenter-1"

  /// The network and recipe, as an index stores it: `<recipe> <backbone identity>`.
  public let identity: String
  /// Values in one print.
  public var dimensions: Int { backbone.featureCount }

  let backbone: FeatureExtractor
  /// Subtracted from a query's pooled features before normalizing, or `nil`.
  let queryCentering: [Float]?

  /// The default printer: EfficientNet-Lite0's backbone, from the default model's checkpoint.
  ///
  /// - Parameter threadCount: The threads one network call may use; `nil` means every active
  ///   processor.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the checkpoint is
  ///   missing (`Scripts/setup` downloads it).
  public init(threadCount: Int? = nil) throws(ClassificationError) {
    let backbone = try FeatureExtractor.efficientNetLite0(threadCount: threadCount)
    self.init(backbone: backbone, queryCentering: InStorePhotoMean.lite0)
  }

  init(backbone: FeatureExtractor, queryCentering: [Float]?) {
    self.backbone = backbone
    self.queryCentering = queryCentering?.count == backbone.featureCount ? queryCentering : nil
    identity = "\(Self.recipe) \(backbone.identity)"
  }

  /// The printer an index's prints were made with.
  ///
  /// - Parameters:
  ///   - identity: The index's ``identity``.
  ///   - threadCount: The threads one network call may use; `nil` means every active
  ///     processor.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the identity names
  ///   another recipe or backbone than this installation has.
  public init(identity: String, threadCount: Int? = nil) throws(ClassificationError) {
    try self.init(threadCount: threadCount)
    guard identity == self.identity else {
      throw ClassificationError(
        .modelUnavailable,
        "the index was made with \"\(identity)\", this installation prints with "
          + "\"\(self.identity)\": rebuild the index")
    }
  }

  /// The feature print of one photo.
  ///
  /// - Parameters:
  ///   - source: The photo (any format ImagePipeline decodes; its orientation is applied).
  ///   - role: Whether it is a query or a catalog picture.
  /// - Returns: The print.
  /// - Throws: ``ClassificationError`` with code `invalidImage` when the photo cannot be decoded,
  ///   `inferenceFailed` when the network fails.
  public func featurePrint(of source: ImageSource, role: Role) throws(ClassificationError)
    -> ImageFeaturePrint
  {
    let views = try self.views(of: source, role: role)
    let features = try backbone.features(forTensors: views)
    return try combine(features, role: role)
  }

  /// The feature prints of several photos, batched through the network.
  ///
  /// - Parameters:
  ///   - sources: The photos.
  ///   - role: Whether they are queries or catalog pictures.
  /// - Returns: One result per photo, in order: its print, or why it has none.
  public func featurePrints(of sources: [ImageSource], role: Role)
    -> [Result<ImageFeaturePrint, ClassificationError>]
  {
    // Photos are decoded on the backbone's threads too: a 12 MP JPEG takes longer to decode
    // than its print takes to compute.
    let prepared = Parallel.map(sources.count, threads: backbone.threadCount) {
      index -> Result<[[Float]], ClassificationError> in
      Result { () throws(ClassificationError) in try views(of: sources[index], role: role) }
    }
    let planes = prepared.flatMap { (try? $0.get()) ?? [] }
    let features: [[Float]]
    do {
      features = try backbone.features(forTensors: planes)
    } catch {
      return prepared.map { $0.flatMap { _ in .failure(error) } }
    }
    var next = 0
    return prepared.map { result in
      result.flatMap { views in
        defer { next += views.count }
        return combined(Array(features[next..<(next + views.count)]), role: role)
      }
    }
  }

  private func combined(_ features: [[Float]], role: Role)
    -> Result<ImageFeaturePrint, ClassificationError>
  {
    do {
      return .success(try combine(features, role: role))
    } catch {
      return .failure(error)
    }
  }

  /// The network inputs of one photo: for a catalog picture, its centered square and its mirror
  /// image; for a query, the classifier's center crop.
  func views(of source: ImageSource, role: Role) throws(ClassificationError) -> [[Float]] {
    let spec = role == .catalog ? catalogSpec : backbone.inputSpec
    let input: ModelInput
    do {
      input = try source.decoded(for: spec).modelInput()
    } catch {
      throw ClassificationError(
        .invalidImage, "\(source.name) cannot be decoded", underlying: error)
    }
    let planes = input.values
    guard role == .catalog else { return [planes] }
    return [planes, Self.mirrored(planes, width: spec.width)]
  }

  private var catalogSpec: ModelInputSpec {
    var spec = backbone.inputSpec
    spec.cropAndScale = .centerCrop(fraction: 1)
    return spec
  }

  /// Input planes with every row reversed: the mirror image.
  static func mirrored(_ planes: [Float], width: Int) -> [Float] {
    var result: [Float] = []
    result.reserveCapacity(planes.count)
    var start = 0
    while start + width <= planes.count {
      result += planes[start..<(start + width)].reversed()
      start += width
    }
    return result
  }

  /// One print from the pooled features of a photo's views: each normalized, then averaged;
  /// a query is centered first.
  private func combine(_ features: [[Float]], role: Role) throws(ClassificationError)
    -> ImageFeaturePrint
  {
    var sum = [Float](repeating: 0, count: backbone.featureCount)
    for view in features {
      let unit = try ImageFeaturePrint(values: view).values
      for index in sum.indices {
        sum[index] += unit[index]
      }
    }
    if role == .query, let queryCentering {
      let unit = try ImageFeaturePrint(values: sum).values
      return try ImageFeaturePrint(values: zip(unit, queryCentering).map { $0 - $1 })
    }
    return try ImageFeaturePrint(values: sum)
  }
}
