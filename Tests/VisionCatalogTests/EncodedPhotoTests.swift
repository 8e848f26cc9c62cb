import Foundation
import NeuralLayers
import Testing
import VisionCatalog

/// `ProductFinder` hands encoded photos to the model, so a large JPEG is decoded at the reduction
/// its input allows; the result still describes the full-size photo.
@Suite struct EncodedPhotoTests {
  /// Global average pooling to three "classes" (mean red, green, blue) named as catalog
  /// categories: a blue photo finds mice.
  static let model = NetworkClassifier(
    network: Sequential(Pool2D.globalAverage(), Flatten()),
    description: ModelDescription(
      name: "pool", input: .efficientNetLite(size: 32), labels: ["Notebooks", "Mugs", "Mice"]))

  /// A 1200 x 900 JPEG, mostly blue, stored turned with EXIF orientation 6.
  static let photo: Data = {
    let width = 1200
    let height = 900
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for pixel in stride(from: 0, to: pixels.count, by: 3) {
      let x = (pixel / 3) % width
      pixels[pixel] = x < 300 ? 200 : 30
      pixels[pixel + 1] = 60
      pixels[pixel + 2] = 210
    }
    let image = try? RasterImage(
      width: width, height: height, format: .rgb, pixels: pixels, orientation: .right)
    return Data(image.flatMap { try? JPEGEncoder(quality: 90).encode($0) } ?? [])
  }()

  func finder(scaling: JPEGScalingPolicy) throws -> ProductFinder {
    ProductFinder(
      model: Self.model, provider: try OfflineCatalogProvider.bundled(),
      preparation: PreparationOptions(jpegScaling: scaling))
  }

  @Test func bytesAndFilesReportTheFullSizePhoto() async throws {
    let fast = try await finder(scaling: .automatic).find(imageData: Self.photo)
    let exact = try await finder(scaling: .exact).find(imageData: Self.photo)
    #expect(fast.category == "Mice")
    let stored = fast.preprocessing
    #expect(stored.sourceWidth == 1200 && stored.sourceHeight == 900)
    #expect(stored.orientation == .right)
    #expect(stored.jpegScale != .full)
    #expect(exact.preprocessing.jpegScale == .full)
    #expect(fast.classification.format == .jpeg)
    #expect(fast.preprocessing.cropRect == exact.preprocessing.cropRect)
    // 32 / 64 of the upright width 900, centered in the upright 900 x 1200.
    #expect(fast.preprocessing.cropRect == PixelRect(x: 225, y: 375, width: 450, height: 450))
    #expect(fast.classifications.map(\.index) == exact.classifications.map(\.index))
    let timings = fast.timings
    #expect(timings.classification.decode > .zero && timings.classification.inference > .zero)
    #expect(
      timings.total == max(timings.classification.total, timings.barcodes) + timings.catalog)

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "encoded-photo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("photo.jpg")
    try Self.photo.write(to: file)
    let fromFile = try await finder(scaling: .automatic).find(contentsOf: file)
    #expect(fromFile.preprocessing == fast.preprocessing)
  }

  @Test func aBrokenPhotoFailsAtTheImageStage() async throws {
    let finder = try finder(scaling: .automatic)
    let error = await #expect(throws: VisionCatalogError.self) {
      try await finder.find(imageData: Data("hello".utf8))
    }
    #expect(error?.stage == .image)
    let missing = await #expect(throws: VisionCatalogError.self) {
      try await finder.find(contentsOf: URL(fileURLWithPath: "/nonexistent/photo.jpg"))
    }
    #expect(missing?.stage == .image)
    #expect(missing?.message.hasPrefix("/nonexistent/photo.jpg:") == true)
  }
}
