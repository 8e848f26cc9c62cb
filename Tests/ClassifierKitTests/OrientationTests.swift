import ClassifierKit
import Foundation
import ImagePipeline
import Testing

/// A photo stored turned, with EXIF orientation 6, classifies like its upright twin.
@Suite struct OrientationTests {
  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func orientation6ClassifiesLikeTheUprightTwin() async throws {
    let models = try #require(ModelFixtures.models)
    let classifier = try ModelFixtures.classifierForPhotos()
    let upright = try ImageDecoder().decode(
      contentsOf: models.appendingPathComponent("photos/chelsea.png"))
    // Orientation 6 turns the stored pixels 90 degrees clockwise for display, so store them
    // turned counter-clockwise (what orientation 8 displays) and tag them 6.
    var stored = upright.oriented(.left)
    stored.orientation = .right
    let twinData = Data(try PNGEncoder().encode(stored))
    let twin = try ImageDecoder().decode(twinData)
    #expect(twin.orientation == .right)
    #expect(twin.width == upright.height && twin.height == upright.width)

    let options = ClassificationOptions(maximumCount: 5)
    let batch = try await classifier.classify(images: [upright, twin], options: options)
    #expect(batch.count == 2)
    #expect(batch[0].map(\.index) == batch[1].map(\.index))
    for (a, b) in zip(batch[0], batch[1]) {
      #expect(abs(a.confidence - b.confidence) <= 1e-6)
    }
    let report = try await classifier.classify(.data(twinData), options: options)
    #expect(report.classifications.map(\.index) == batch[0].map(\.index))
    #expect(
      zip(report.classifications, batch[0]).allSatisfy {
        abs($0.confidence - $1.confidence) <= 1e-5
      })
    #expect(report.preprocessing.orientation == .right)
    #expect(report.preprocessing.sourceWidth == upright.height)
    #expect(report.preprocessing.orientedWidth == upright.width)
    #expect(report.preprocessing.cropRect == PixelRect(x: 95, y: 19, width: 262, height: 262))
    print("orientation 6 twin: \(report.classifications.map(\.label)), \(report.timings)")
  }
}
