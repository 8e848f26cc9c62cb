import Foundation
import TestSupport
import Testing
import VisionCatalog

/// The default model, loaded once for the suites that need it; `nil` when it is not downloaded.
enum DefaultModelFixture {
  static let model: NetworkClassifier? = try? NetworkClassifier.efficientNetLite0()
}

/// The main job for real: the default model (EfficientNet-Lite0 weights fetched by
/// `Scripts/fetch-default-model.sh`) on the bundled sample photo, against the bundled catalog and
/// the real OData v4 and v2 test servers serving the same catalog data.
@Suite(
  .enabled(
    if: DefaultModelFixture.model != nil,
    "needs the default model: run Scripts/fetch-default-model.sh"),
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
struct EndToEndTests {
  static let photo = ODataTestServer.packageRoot.appendingPathComponent("Samples/coffee.png")

  @Test func samplePhotoFindsTheSameProductsEverywhere() async throws {
    let model = try #require(DefaultModelFixture.model)
    let mapping = CategoryMapping.suggested(forLabels: model.labels)
    let providers: [(String, any CatalogProvider)] = [
      ("bundled", try OfflineCatalogProvider.bundled()),
      (
        "v4",
        HTTPCatalogProvider(serviceRoot: try ODataTestServers.shared(.v4).serviceRoot, version: .v4)
      ),
      (
        "v2",
        HTTPCatalogProvider(serviceRoot: try ODataTestServers.shared(.v2).serviceRoot, version: .v2)
      ),
    ]
    let image = try ImageDecoder().decode(contentsOf: Self.photo)
    var found: [String: ProductSearchResult] = [:]
    for (name, provider) in providers {
      let finder = ProductFinder(model: model, mapping: mapping, provider: provider)
      found[name] = try await finder.find(image: image)
    }
    let bundled = try #require(found["bundled"])
    #expect(bundled.classifications.first?.label == "espresso")
    #expect(bundled.category == "Espresso Machines")
    #expect(bundled.preprocessing.cropRect == PixelRect(x: 125, y: 25, width: 350, height: 350))
    #expect(!bundled.products.isEmpty)
    for name in ["v4", "v2"] {
      let remote = try #require(found[name])
      #expect(remote.category == bundled.category, "\(name)")
      // A service's picture URLs come resolved against its root, the bundled catalog's as written.
      let origin = try #require(remote.products.first?.pictureUrl?.prefix(while: { $0 != "/" }))
      #expect(origin == "http:", "\(name)")
      #expect(
        remote.products.map { product in
          var relative = product
          relative.pictureUrl = product.pictureUrl.map {
            String($0.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
          }
          return relative
        } == bundled.products, "\(name)")
      #expect(remote.query.hasPrefix("http://127.0.0.1:"), "\(name): \(remote.query)")
      #expect(remote.query.contains("Espresso%20Machines"), "\(name): \(remote.query)")
    }
  }
}
