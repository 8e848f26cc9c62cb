import ClassifierKit
import Foundation
import ImagePipeline
import Testing

/// The dummy's documented values, recomputed here from the documentation's formulas.
///
/// The dummy
/// keeps no state outside its instance and reads no clock or random source, so matching these
/// constants in one process is matching them in every process.
@Suite struct DummyDeterminismTests {
  let labels = ["Notebooks", "Mice", "Keyboards", "Mugs"]

  /// 64-bit FNV-1a over the prepared tensor's extents (little-endian UInt64 each), then its
  /// values' IEEE 754 bit patterns (little-endian UInt32 each).
  func documentedHash(_ image: RasterImage, spec: ModelInputSpec) throws -> UInt64 {
    let tensor = try spec.tensor(from: image).tensor
    var bytes: [UInt8] = []
    for value in tensor.shape {
      bytes += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(value) >> (8 * UInt64($0))) }
    }
    for value in tensor.values {
      bytes += (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * UInt32($0))) }
    }
    var hash: UInt64 = 14_695_981_039_346_656_037
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
    return hash
  }

  @Test func contentDerivedFollowsTheDocumentedHash() async throws {
    let model = try DummyClassifier(labels: labels, derivesFromContent: true)
    for seed in 0..<16 {
      let pixels = (0..<12).map { UInt8(truncatingIfNeeded: $0 * 37 + seed * 11) }
      let image = try RasterImage(width: 2, height: 2, format: .rgb, pixels: pixels)
      let first = Int(try documentedHash(image, spec: model.inputSpec) % UInt64(labels.count))
      let results = try await model.classify(
        image: image, options: ClassificationOptions(maximumCount: 4, scoring: .raw))
      #expect(results.map(\.index) == (0..<4).map { (first + $0) % 4 })
      #expect(results.map(\.confidence) == [4, 3, 2, 1])
    }
  }

  @Test func confidencesAreTheDocumentedSoftmax() async throws {
    let model = try DummyClassifier(labels: labels)
    let image = try RasterImage(width: 1, height: 1, format: .gray, pixels: [0])
    let results = try await model.classify(image: image)
    // Softmax of the raw scores 4, 3, 2, 1 after subtracting the maximum, in double precision.
    let exponentials = [0.0, -1, -2, -3].map { exp($0) }
    let sum = exponentials.reduce(0, +)
    let expected = exponentials.map { Float($0 / sum) }
    #expect(results.map(\.confidence) == expected)
    #expect(results.map(\.label) == labels)
  }

  @Test func swapsInForANetworkInOneLine() async throws {
    let model: any ImageClassificationModel = try DummyClassifier(labels: labels)
    let image = try RasterImage(width: 1, height: 1, format: .gray, pixels: [0])
    let batch = try await model.classify(images: [image, image, image], options: .default)
    #expect(batch.map { $0.first?.label } == ["Notebooks", "Mice", "Keyboards"])
  }
}
