public import CatalogClient
public import ClassifierKit
public import Foundation
import ImagePipeline
import VisualSearch

/// Builds and updates a VisualSearch's `ProductIndex` from a catalog's product pictures or from
/// folders of photos named by product id.
///
/// Updates are incremental: a picture whose bytes have not changed (same product, same source,
/// same SHA-256) keeps its feature print; new or changed pictures are embedded; pictures and
/// products no longer there are dropped; and the index is replaced in one step. Feature prints
/// are also appended to a journal beside the index (`INDEX.journal`) as they are made, so an
/// update that is interrupted (Ctrl-C, a crash) embeds only what it had not done when it is
/// run again.
public struct ProductIndexer: Sendable {
  /// What an update did.
  public struct Report: Sendable, Hashable {
    /// The index's location.
    public var index: String
    /// Products in the updated index.
    public var products: Int
    /// Pictures in the updated index.
    public var pictures: Int
    /// Pictures embedded in this update.
    public var added: Int
    /// Pictures dropped (gone, or changed and embedded again).
    public var removed: Int
    /// Pictures kept as they were.
    public var unchanged: Int
    /// Pictures that could not be read or embedded, and why; they are not in the index.
    public var skipped: [SkippedPhoto]
  }

  /// One picture to index, before it is read.
  struct Candidate: Sendable {
    var picture: IndexedPicture
    var load: @Sendable () async throws(PictureFailure) -> Data
  }

  /// Makes the feature prints.
  public let printer: FeaturePrinter
  /// Pictures embedded per network batch.
  public var batchSize = 16

  /// Creates an indexer.
  ///
  /// - Parameter printer: The feature printer; the index records its identity.
  public init(printer: FeaturePrinter) {
    self.printer = printer
  }

  /// Indexes a catalog's product pictures: each product with a picture, with its name and
  /// category.
  ///
  /// - Parameters:
  ///   - source: The catalog (a service or a catalog file; the bundled catalog has no pictures).
  ///   - provider: The source's provider.
  ///   - schema: Where the catalog keeps its products.
  ///   - pictureHeaders: Header fields for a service's picture requests.
  ///   - location: The index file or `postgresql://` URL.
  ///   - progress: Called after each picture with the number done and the total.
  /// - Returns: What the update did.
  /// - Throws: ``VisionCatalogError`` with stage `catalog` when the products cannot be read,
  ///   `search` when the index cannot be opened or written.
  public func index(
    catalog source: CatalogSource, provider: any CatalogProvider,
    schema: CatalogSchema = .espm, pictureHeaders: [String: String] = [:],
    into location: String, progress: @Sendable (Int, Int) -> Void = { _, _ in }
  ) async throws(VisionCatalogError) -> Report {
    let products: [Product]
    do {
      products = try await provider.allProducts(schema: schema, maximumPages: 1_000)
    } catch {
      throw VisionCatalogError(.catalog, "cannot read the catalog's products", underlying: error)
    }
    let pictures = CatalogPictures(source, headers: pictureHeaders)
    let candidates = products.compactMap { product -> Candidate? in
      guard let url = product.pictureUrl, !url.isEmpty else { return nil }
      let picture = IndexedPicture(
        productId: product.productId, name: product.name ?? "",
        category: product.categoryName ?? "", source: url)
      return Candidate(picture: picture) { () async throws(PictureFailure) -> Data in
        try await pictures.load(url)
      }
    }
    return try await update(location, with: candidates, progress: progress)
  }

  /// Indexes photos in folders named by product id (`DIR/<product id>/<photo>`); a folder's
  /// photos are all pictures of that product.
  ///
  /// - Parameters:
  ///   - directory: The folder of product folders.
  ///   - location: The index file or `postgresql://` URL.
  ///   - progress: Called after each picture with the number done and the total.
  /// - Returns: What the update did.
  /// - Throws: ``VisionCatalogError`` with stage `input` when the folder cannot be listed or
  ///   holds no photos, `search` when the index cannot be opened or written.
  public func index(
    photos directory: URL, into location: String,
    progress: @Sendable (Int, Int) -> Void = { _, _ in }
  ) async throws(VisionCatalogError) -> Report {
    let photos: [TrainingPhoto]
    do {
      photos = try TrainingPhoto.labeledFolders(at: directory)
    } catch {
      throw VisionCatalogError(.image, error.message, underlying: error)
    }
    let root = directory.standardizedFileURL.path
    let candidates = photos.map { photo -> Candidate in
      // labeledFolders names each photo by its file's path.
      let url = URL(fileURLWithPath: photo.source.name)
      var relative = url.standardizedFileURL.path
      if relative.hasPrefix(root + "/") { relative.removeFirst(root.count + 1) }
      let picture = IndexedPicture(productId: photo.label, source: relative)
      return Candidate(picture: picture) { () async throws(PictureFailure) -> Data in
        do {
          return try Data(contentsOf: url)
        } catch {
          throw PictureFailure("\(url.path) cannot be read")
        }
      }
    }
    return try await update(location, with: candidates, progress: progress)
  }

  /// The incremental update: read and hash every candidate, embed what is new or changed, drop
  /// what is gone, replace the index.
  func update(
    _ location: String, with candidates: [Candidate], progress: @Sendable (Int, Int) -> Void
  ) async throws(VisionCatalogError) -> Report {
    let index = try await Self.open(location)
    let identity = printer.identity
    let existing = index.embedder == identity ? try await Self.pictures(of: index) : []
    var known: [String: IndexedPicture] = [:]
    for picture in existing {
      known[Self.key(picture)] = picture
    }
    var journal: EmbeddingJournal
    do {
      journal = try EmbeddingJournal(for: location, embedder: identity)
    } catch {
      throw VisionCatalogError(.search, "cannot open the index's journal", underlying: error)
    }
    var report = Report(
      index: location, products: 0, pictures: 0, added: 0, removed: 0, unchanged: 0, skipped: [])
    var kept = Set<String>()
    var pending: [(IndexedPicture, Data)] = []
    var added: [(picture: IndexedPicture, featurePrint: [Float])] = []
    for (position, candidate) in candidates.enumerated() {
      var picture = candidate.picture
      do throws(PictureFailure) {
        let bytes = try await candidate.load()
        picture.contentHash = SHA256.hexDigest(bytes)
        if let old = known[Self.key(picture)], old == picture {
          kept.insert(Self.key(picture))
          report.unchanged += 1
        } else if let vector = journal.vector(for: picture.contentHash) {
          added.append((picture, vector))
        } else {
          pending.append((picture, bytes))
        }
      } catch {
        report.skipped.append(
          SkippedPhoto(name: picture.source, label: picture.productId, reason: error.message))
      }
      if pending.count >= batchSize || position == candidates.count - 1 {
        added += embed(pending, journal: &journal, skipped: &report.skipped)
        pending.removeAll()
      }
      progress(position + 1, candidates.count)
    }
    let removed = Set(existing.filter { !kept.contains(Self.key($0)) })
    report.removed = removed.count
    report.added = added.count
    let updated: ProductIndex
    do {
      updated = try await index.updated(embedder: identity, removing: removed, adding: added)
    } catch {
      throw VisionCatalogError(.search, "cannot write the index \(location)", underlying: error)
    }
    journal.remove()
    let all = try await Self.pictures(of: updated)
    report.pictures = all.count
    report.products = Set(all.map(\.productId)).count
    return report
  }

  /// Embeds a batch of pictures; one that fails is skipped and listed, the others go on.
  private func embed(
    _ batch: [(IndexedPicture, Data)], journal: inout EmbeddingJournal,
    skipped: inout [SkippedPhoto]
  ) -> [(picture: IndexedPicture, featurePrint: [Float])] {
    guard !batch.isEmpty else { return [] }
    let sources = batch.map { ImageSource.data($0.1, name: $0.0.source) }
    var embedded: [(picture: IndexedPicture, featurePrint: [Float])] = []
    for ((picture, _), result) in zip(batch, printer.featurePrints(of: sources, role: .catalog)) {
      switch result {
      case .success(let print):
        journal.append(print.values, for: picture.contentHash)
        embedded.append((picture, print.values))
      case .failure(let error):
        skipped.append(
          SkippedPhoto(name: picture.source, label: picture.productId, reason: error.message))
      }
    }
    return embedded
  }

  /// A picture's identity across updates: its product and source.
  static func key(_ picture: IndexedPicture) -> String {
    "\(picture.productId)\u{0}\(picture.source)"
  }

  static func open(_ location: String) async throws(VisionCatalogError) -> ProductIndex {
    do {
      return try await ProductIndex.open(location)
    } catch {
      throw VisionCatalogError(.search, "cannot open the index \(location)", underlying: error)
    }
  }

  static func pictures(of index: ProductIndex) async throws(VisionCatalogError)
    -> [IndexedPicture]
  {
    do {
      return try await index.pictures()
    } catch {
      throw VisionCatalogError(
        .search, "cannot read the index \(index.location)", underlying: error)
    }
  }
}
