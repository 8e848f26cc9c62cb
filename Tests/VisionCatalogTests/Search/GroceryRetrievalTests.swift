import Foundation
import TestSupport
import Testing
import VisionCatalog

/// Visual search on real shop photos.
///
/// The Grocery Store Dataset's validation photos (in-store phone photos) are searched against
/// the shop's studio picture of each product, with the default feature printer, as
/// `index --photos` and `similar` do it. Release builds measure all 81
/// products and 296 photos (the figures in Docs/Search.md); debug builds an evenly spread tenth
/// (all of them with `VISION_CATALOG_GROCERY_FULL=1`).
@Suite(
  .enabled(if: DefaultModelFixture.model != nil, "needs the default model"),
  .enabled(
    if: SharedData.contains("grocery/classes.csv"),
    Comment(rawValue: SharedData.skipReason(for: "grocery/classes.csv"))))
struct GroceryRetrievalTests {
  struct Product {
    let name: String
    let id: Int
    let iconic: URL
  }

  static func products(_ root: URL) throws -> [Product] {
    let lines = try String(contentsOf: root.appendingPathComponent("classes.csv"), encoding: .utf8)
      .split(whereSeparator: \.isNewline).dropFirst()
    return lines.compactMap { line in
      let fields = line.split(separator: ",").map(String.init)
      guard fields.count >= 5, let id = Int(fields[1]) else { return nil }
      return Product(name: fields[0], id: id, iconic: root.appendingPathComponent(fields[4]))
    }
  }

  static func validation(_ root: URL) throws -> [(photo: URL, product: Int)] {
    try String(contentsOf: root.appendingPathComponent("val.txt"), encoding: .utf8)
      .split(whereSeparator: \.isNewline).compactMap { line in
        let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count >= 2, let id = Int(fields[1]) else { return nil }
        return (root.appendingPathComponent(fields[0]), id)
      }
  }

  @Test func inStorePhotosFindTheirProductAmongTheShopsPictures() async throws {
    let root = try #require(SharedData.url("grocery"))
    var products = try Self.products(root)
    var queries = try Self.validation(root)
    #expect(products.count == 81)
    let full = ProcessInfo.processInfo.environment["VISION_CATALOG_GROCERY_FULL"] == "1"
    #if DEBUG
      let chosen = Set(stride(from: 0, to: 81, by: full ? 1 : 8))
      products = products.filter { chosen.contains($0.id) }
      var seen: [Int: Int] = [:]
      queries = queries.filter { query in
        guard chosen.contains(query.product) else { return false }
        seen[query.product, default: 0] += 1
        return full || seen[query.product, default: 0] <= 2
      }
    #endif
    let tree = try PhotoTree("grocery-iconic")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    for product in products {
      let folder = try tree.folder("iconic/\(product.name)")
      try FileManager.default.createSymbolicLink(
        at: folder.appendingPathComponent(product.iconic.lastPathComponent),
        withDestinationURL: product.iconic)
    }
    // One thread: the suite runs beside the others, and the figures do not depend on it.
    let printer = try FeaturePrinter(threadCount: 1)
    let location = tree.url("grocery.vcindex").path
    let report = try await ProductIndexer(printer: printer).index(
      photos: tree.url("iconic"), into: location)
    #expect(report.pictures == products.count)
    #expect(report.skipped.isEmpty)
    let index = try await ProductIndex.open(location)
    let names = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0.name) })
    var first = 0
    var inFive = 0
    for (photo, product) in queries {
      let print = try printer.featurePrint(of: .file(photo), role: .query)
      let matches = try await index.search(print.values, top: 5).map(\.productId)
      if matches.first == names[product] { first += 1 }
      if matches.contains(names[product] ?? "") { inFive += 1 }
    }
    let top1 = Double(first) / Double(queries.count)
    let top5 = Double(inFive) / Double(queries.count)
    print(
      String(
        format: "grocery retrieval: %d photos against %d pictures: top-1 %.1f %%, top-5 %.1f %%",
        queries.count, products.count, 100 * top1, 100 * top5))
    #if DEBUG
      #expect(top1 >= (full ? 0.45 : 0.6), "\(top1)")
      #expect(top5 >= (full ? 0.72 : 0.9), "\(top5)")
    #else
      #expect(top1 >= 0.45, "\(top1)")
      #expect(top5 >= 0.72, "\(top5)")
    #endif
  }
}
