import Foundation
import Testing
import VisionCatalog

/// The facade with the deterministic dummy model and the bundled offline catalog: no network,
/// no model weights.
@Suite struct ProductFinderTests {
  let photo: RasterImage

  init() throws {
    photo = try RasterImage(width: 3, height: 2, format: .rgb, pixels: Array(0..<18))
  }

  func finder(labels: [String], mapping: CategoryMapping = .identity) throws -> ProductFinder {
    ProductFinder(
      model: try DummyClassifier(labels: labels), mapping: mapping,
      provider: try OfflineCatalogProvider.bundled())
  }

  @Test func topLabelThatIsACategoryFindsItsProducts() async throws {
    let result = try await finder(labels: ["Mice", "Mugs"]).find(image: photo)
    #expect(result.category == "Mice")
    #expect(!result.products.isEmpty)
    #expect(result.products.allSatisfy { $0.categoryName == "Mice" })
    #expect(result.query.contains("CategoryName%20eq%20'Mice'"))
    #expect(result.categoryAttempts.map(\.outcome) == [.chosen])
    #expect(result.preprocessing.sourceWidth == 3 && result.preprocessing.sourceHeight == 2)
    #expect(result.preprocessing.cropRect == PixelRect(x: 0, y: 0, width: 3, height: 2))
  }

  @Test func unmappedAndEmptyLabelsFallThroughToTheNext() async throws {
    let mapping = CategoryMapping(["laptop": "Notebooks", "unicorn": "Unicorns"])
    let result = try await finder(labels: ["cat", "unicorn", "laptop"], mapping: mapping)
      .find(image: photo)
    #expect(result.category == "Notebooks")
    #expect(
      result.categoryAttempts.map(\.outcome) == [.unmapped, .noProducts, .chosen])
    #expect(result.categoryAttempts.map(\.category) == [nil, "Unicorns", "Notebooks"])
  }

  @Test func noUsableLabelIsAClearError() async throws {
    let finder = try finder(labels: ["cat", "dog"], mapping: CategoryMapping([:]))
    let error = await #expect(throws: VisionCatalogError.self) {
      try await finder.find(image: photo)
    }
    #expect(error?.stage == .noCategory)
    #expect(error?.message.contains("'cat'") == true)
  }

  @Test func bytesThatAreNotAnImageFailAtTheImageStage() async throws {
    let finder = try finder(labels: ["Mice"])
    let error = await #expect(throws: VisionCatalogError.self) {
      try await finder.find(imageData: Data("hello".utf8))
    }
    #expect(error?.stage == .image)
    #expect(error?.underlying is ImageDecodingError)
  }

  @Test func imageNetMappingPointsAtBundledCategoriesWithProducts() async throws {
    let mapping = CategoryMapping.imageNetToBundledCatalog
    let espresso = Classification(label: "espresso", index: 967, confidence: 0.9)
    #expect(mapping.category(for: espresso) == "Espresso Machines")
    let table = try #require(mapping.table)
    #expect(table.count == 29)
    let catalog = try OfflineCatalog.bundled()
    let stocked = Set(catalog.products.compactMap(\.categoryName))
    #expect(Set(table.values).isSubset(of: stocked), "\(Set(table.values).subtracting(stocked))")
  }
}
