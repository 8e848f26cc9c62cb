import Foundation
import TestSupport
import Testing
import VisionCatalog

/// The data the libraries embed as Swift (Scripts/embed-resources.py) equals its source files,
/// so the test servers, which read the files, serve the very catalog the offline provider has.
@Suite struct EmbeddedDataTests {
  func source(_ path: String) -> URL {
    ODataTestServer.packageRoot.appendingPathComponent(path)
  }

  @Test func bundledCatalogEqualsItsFile() throws {
    let file = try OfflineCatalog(
      contentsOf: source("Sources/CatalogClient/Resources/catalog.json"))
    #expect(try OfflineCatalog.bundled() == file)
  }

  @Test func imageNetLabelsEqualTheirFile() throws {
    let text = try String(
      contentsOf: source("Sources/ClassifierKit/Resources/imagenet1k_labels.txt"), encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 1_000)
    #expect(ModelDescription.efficientNetLite0().labels == lines)
  }

  @Test func categoryTableEqualsItsFile() throws {
    struct File: Decodable {
      struct Row: Decodable {
        let label: String
        let category: String
      }
      let mappings: [Row]
    }
    let data = try Data(
      contentsOf: source("Sources/VisionCatalog/Resources/imagenet-categories.json"))
    let rows = try JSONDecoder().decode(File.self, from: data).mappings
    let table = Dictionary(uniqueKeysWithValues: rows.map { ($0.label, $0.category) })
    #expect(CategoryMapping.imageNetToBundledCatalog.table == table)
  }
}
