import Foundation
import Synchronization
import TestSupport
import Testing
import VisionCatalog

/// A model that is not a `NetworkClassifier` gets everything the protocol promises through
/// `ProductFinder`: the crop, stage timings, the reduced JPEG decode, one read of the file, and a
/// thread of its own.
@Suite struct CustomModelTests {
  /// Names the brightest color plane of its 32 x 32 input after catalog categories, and records
  /// the thread it ran on.
  struct MeanColorModel: ImageClassificationModel {
    let labels = ["Notebooks", "Mugs", "Mice"]
    let inputSpec = ModelInputSpec.efficientNetLite(size: 32)
    let threads = ThreadNames()

    func classify(prepared input: ModelInput, options: ClassificationOptions)
      throws(ClassificationError) -> [Classification]
    {
      threads.record(ComputeExecutor.isWorkerThread ? "compute" : "other")
      let plane = input.tensor.values.count / 3
      let means = (0..<3).map { channel in
        input.tensor.values[(channel * plane)..<((channel + 1) * plane)].reduce(0, +)
          / Float(plane)
      }
      return Classification.ranked(scores: means, labels: labels, options: options)
    }
  }

  /// The thread names a model ran on, shared by its copies.
  final class ThreadNames: Sendable {
    private let names = Mutex<[String]>([])

    func record(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
  }

  /// A 1200 x 900 JPEG, blue, stored turned with EXIF orientation 6.
  static func writePhoto() throws -> URL {
    let pixels = [UInt8]((0..<(1200 * 900)).flatMap { _ in [UInt8(30), 60, 210] })
    let image = try RasterImage(
      width: 1200, height: 900, format: .rgb, pixels: pixels, orientation: .right)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "custom-model-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("photo.jpg")
    try Data(try JPEGEncoder(quality: 90).encode(image)).write(to: file)
    return file
  }

  @Test func aCustomModelGetsCropTimingsAndTheReducedDecode() async throws {
    let file = try Self.writePhoto()
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    let model = MeanColorModel()
    let finder = ProductFinder(model: model, provider: try OfflineCatalogProvider.bundled())
    let opens = try FileOpenCounter(watching: file)
    let result = try await finder.find(contentsOf: file)
    #expect(opens.opensSinceLastCall() == 1, "the photo must be read once")
    #expect(result.category == "Mice")
    #expect(result.classification.modelName == "MeanColorModel")
    #expect(result.classification.format == .jpeg)
    let provenance = result.preprocessing
    #expect(provenance.sourceWidth == 1200 && provenance.sourceHeight == 900)
    #expect(provenance.orientation == .right)
    // 32 / 64 of the upright width 900, centered in the upright 900 x 1200.
    #expect(provenance.cropRect == PixelRect(x: 225, y: 375, width: 450, height: 450))
    #expect(provenance.jpegScale == .eighth)
    let timings = result.timings.classification
    #expect(timings.decode > .zero && timings.preprocess > .zero && timings.inference > .zero)
    #expect(model.threads.all == ["compute"], "the model must run on a compute thread")
  }

  @Test func bytesAndDecodedImagesTakeTheSamePath() async throws {
    let file = try Self.writePhoto()
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    let finder = ProductFinder(
      model: MeanColorModel(), provider: try OfflineCatalogProvider.bundled(),
      preparation: PreparationOptions(jpegScaling: .exact))
    let fromFile = try await finder.find(contentsOf: file)
    let fromBytes = try await finder.find(imageData: try Data(contentsOf: file))
    let fromImage = try await finder.find(image: try ImageDecoder().decode(contentsOf: file))
    #expect(fromFile.preprocessing == fromBytes.preprocessing)
    #expect(fromFile.preprocessing == fromImage.preprocessing)
    #expect(fromFile.preprocessing.jpegScale == .full)
    #expect(fromFile.classifications == fromImage.classifications)
    #expect(fromImage.classification.format == nil)
  }
}
