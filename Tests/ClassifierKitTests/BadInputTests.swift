import ClassifierKit
import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import NeuralLayers
import TestSupport
import Testing

/// Hostile photos and model files end in a typed ``ClassificationError`` with the lower layer's
/// error attached, never in a crash.
@Suite struct BadInputTests {
  /// A tiny network (global average pooling to three "classes") so that image errors are tested
  /// without the real model.
  let classifier = NetworkClassifier(
    network: Sequential(Pool2D.globalAverage(), Flatten()),
    description: ModelDescription(
      name: "pool", input: ModelInputSpec(size: 4), labels: ["red", "green", "blue"]))

  @Test func tinyNetworkClassifiesByMeanColor() throws {
    let image = try RasterImage(
      width: 2, height: 2, format: .rgb, pixels: [0, 0, 200, 0, 0, 200, 10, 0, 200, 0, 0, 200])
    let report = try classifier.classify(
      .image(image), options: ClassificationOptions(scoring: .raw))
    #expect(report.classifications.map(\.label) == ["blue", "red", "green"])
    #expect(report.format == nil)
    #expect(report.preprocessing.cropRect == PixelRect(x: 0, y: 0, width: 2, height: 2))
  }

  @Test func concurrentCallsGiveTheSequentialResults() async throws {
    let images = try (0..<40).map { seed in
      try RasterImage(
        width: 3, height: 2, format: .rgb,
        pixels: (0..<18).map { UInt8(truncatingIfNeeded: $0 * 29 + seed * 53) })
    }
    let options = ClassificationOptions(maximumCount: 3, scoring: .raw)
    let sequential = try images.map { try classifier.classify(.image($0), options: options) }
    let model = classifier
    let concurrent = try await withThrowingTaskGroup(of: (Int, [Classification]).self) { group in
      for (position, image) in images.enumerated() {
        group.addTask { (position, try await model.classify(image: image, options: options)) }
      }
      return try await group.reduce(into: [Int: [Classification]]()) { $0[$1.0] = $1.1 }
    }
    for position in images.indices {
      #expect(concurrent[position] == sequential[position].classifications)
    }
    let batched = try await classifier.classify(images: images, options: options)
    #expect(batched == sequential.map(\.classifications))
    let prepared = try images.map { try classifier.inputSpec.tensor(from: $0) }
    #expect(try classifier.classify(prepared: prepared, options: options) == batched)
  }

  @Test(arguments: [
    ("not an image", Array("hello, this is text".utf8)),
    ("zero bytes", []),
    ("truncated PNG", Array(ImageFixtures.pngHeader(width: 4, height: 4).prefix(20))),
    ("200 MP header", ImageFixtures.pngHeader(width: 20_000, height: 10_000)),
  ])
  func badPhotosGiveInvalidImage(name: String, bytes: [UInt8]) throws {
    let error = try #require(throws: ClassificationError.self, "\(name)") {
      try classifier.classify(.data(Data(bytes)))
    }
    #expect(error.code == .invalidImage)
    #expect(error.underlying is ImageDecodingError, "\(error)")
  }

  @Test func missingPhotoFileGivesInvalidImage() throws {
    let error = try #require(throws: ClassificationError.self) {
      try classifier.classify(.file(URL(fileURLWithPath: "/nonexistent/photo.jpg")))
    }
    #expect(error.code == .invalidImage)
    #expect(error.underlying is ImageDecodingError)
  }

  @Test func inputsOfAnotherShapeAreRefused() throws {
    let other = try ModelInputSpec(size: 5).tensor(
      from: try RasterImage(width: 1, height: 1, format: .gray, pixels: [1]))
    let error = try #require(throws: ClassificationError.self) {
      try classifier.classify(prepared: other, options: .default)
    }
    #expect(error.code == .invalidArgument)
  }

  @Test func labelCountMismatchIsADescriptionError() throws {
    let wrong = NetworkClassifier(
      network: Sequential(Pool2D.globalAverage(), Flatten()),
      description: ModelDescription(name: "pool", input: ModelInputSpec(size: 4), labels: ["x"]))
    let image = try RasterImage(width: 1, height: 1, format: .gray, pixels: [1])
    let error = try #require(throws: ClassificationError.self) {
      try wrong.classify(.image(image))
    }
    #expect(error.code == .invalidModelDescription)
  }

  @Test(arguments: [
    ("garbage", Array(repeating: UInt8(0x41), count: 300)),
    ("empty", []),
    ("legacy pickle cut short", [0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC]),
    ("zip without data.pkl", [0x50, 0x4B, 0x05, 0x06] + Array(repeating: 0, count: 18)),
  ])
  func corruptCheckpointGivesModelUnavailable(name: String, bytes: [UInt8]) throws {
    let directory = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("broken.pth")
    try Data(bytes).write(to: url)
    let error = try #require(throws: ClassificationError.self, "\(name)") {
      try NetworkClassifier.efficientNetLite0(checkpoint: url)
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.underlying is ModelFormatsError, "\(error)")
  }

  @Test(.enabled(if: ModelFixtures.checkpoint != nil, ModelFixtures.checkpointSkipReason))
  func truncatedRealCheckpointGivesModelUnavailable() throws {
    let checkpoint = try #require(ModelFixtures.checkpoint)
    let bytes = try Data(contentsOf: checkpoint)
    let directory = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for (name, data) in [
      ("truncated", bytes.prefix(bytes.count / 2)),
      ("flipped tail", bytes.prefix(bytes.count - 16) + Data(repeating: 0xFF, count: 8)),
    ] {
      let url = directory.appendingPathComponent("\(name).pth")
      try Data(data).write(to: url)
      let error = try #require(throws: ClassificationError.self, "\(name)") {
        try NetworkClassifier.efficientNetLite0(checkpoint: url)
      }
      #expect(error.code == .modelUnavailable)
      #expect(error.underlying is ModelFormatsError, "\(error)")
    }
  }

  @Test func checkpointOfAnotherNetworkNamesTheMissingParameter() throws {
    let error = try #require(throws: NeuralCoreError.self) {
      try EfficientNetLite.lite0().loading([
        "_conv_stem.weight": try Tensor(repeating: 0, shape: [32, 3, 3, 3])
      ])
    }
    #expect(error.code == .missingValue)
    #expect(error.message.contains("_bn0"))
  }

  @Test(arguments: [
    ("garbage", Array(repeating: UInt8(0xFF), count: 64)),
    ("empty", []),
    ("protobuf with a wrong field", [0x08, 0x07, 0x3A, 0x7F, 0x00]),
  ])
  func corruptONNXGivesModelUnavailable(name: String, bytes: [UInt8]) throws {
    let directory = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try "a\nb\n".write(
      to: directory.appendingPathComponent("labels.txt"), atomically: true, encoding: .utf8)
    try #"{"inputSize": 8, "mean": 0, "std": 1, "labels": "labels.txt"}"#.write(
      to: directory.appendingPathComponent("net.json"), atomically: true, encoding: .utf8)
    let model = directory.appendingPathComponent("net.onnx")
    try Data(bytes).write(to: model)
    let error = try #require(throws: ClassificationError.self, "\(name)") {
      try NetworkClassifier.onnx(contentsOf: model)
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.underlying is ModelFormatsError, "\(error)")
  }

  @Test func missingDefaultModelSaysTheFetchCommand() throws {
    let empty = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: empty) }
    let directories = DefaultModel.cacheDirectories(environment: [
      "VISION_CATALOG_CACHE": empty.path, "XDG_CACHE_HOME": "/xdg", "HOME": "/home/someone",
    ])
    #expect(directories.prefix(2).map(\.path) == [empty.path, "/xdg/vision-catalog"])
    let home = DefaultModel.cacheDirectories(environment: ["HOME": "/home/someone"])
    #expect(home.first?.path == "/home/someone/.cache/vision-catalog")
    let error = try #require(throws: ClassificationError.self) {
      try DefaultModel.locateCheckpoint(in: [empty])
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.message.contains("`Scripts/fetch-default-model.sh --user-cache`"))
    #expect(error.message.contains(empty.appendingPathComponent("models").path))
    print("missing default model: \(error)")
  }

  @Test func missingExplicitCheckpointIsModelUnavailable() throws {
    let empty = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: empty) }
    let error = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.efficientNetLite0(
        checkpoint: empty.appendingPathComponent("models/\(DefaultModel.checkpointFileName)"))
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.underlying is ModelFormatsError)
  }
}
