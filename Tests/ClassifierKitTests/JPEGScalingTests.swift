import ClassifierKit
import Foundation
import ImagePipeline
import NeuralCore
import NeuralLayers
import Testing

/// `NetworkClassifier` decodes large JPEG photos at a DCT-domain reduction by default and at full
/// size in exact mode, reporting the same full-size provenance either way.
@Suite struct JPEGScalingTests {
  /// Global average pooling to three "classes", the mean red, green and blue of the input, so the
  /// decoding path is tested in debug builds without the real model.
  static let classifier = NetworkClassifier(
    network: Sequential(Pool2D.globalAverage(), Flatten()),
    description: ModelDescription(
      name: "pool", input: .efficientNetLite(size: 32), labels: ["red", "green", "blue"]))

  /// A 1000 x 760 JPEG stored turned with EXIF orientation 6: red on the left of the stored
  /// pixels (the top once upright), blue elsewhere, with a gentle gradient.
  static let photo: Data = {
    let width = 1000
    let height = 760
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let pixel = (y * width + x) * 3
        let shade = UInt8(40 + y * 100 / height)
        pixels[pixel] = x < 400 ? 220 : shade
        pixels[pixel + 2] = x < 400 ? shade : 200
      }
    }
    let image = try? RasterImage(
      width: width, height: height, format: .rgb, pixels: pixels, orientation: .right)
    return Data(image.flatMap { try? JPEGEncoder(quality: 90).encode($0) } ?? [])
  }()

  static let raw = ClassificationOptions(maximumCount: 3, scoring: .raw)

  static func scores(_ report: ClassificationReport) -> [Float] {
    var scores = [Float](repeating: .nan, count: 3)
    for classification in report.classifications {
      scores[classification.index] = classification.confidence
    }
    return scores
  }

  @Test func automaticScalingDecodesReducedWithFullSizeProvenance() throws {
    let fast = try Self.classifier.classify(.data(Self.photo), options: Self.raw)
    let exact = try Self.classifier.classify(
      .data(Self.photo), preparation: PreparationOptions(jpegScaling: .exact),
      options: Self.raw)
    // The 380-pixel crop (32 / 64 of the upright width 760) is still 47 pixels at 1/8.
    #expect(fast.preprocessing.jpegScale == .eighth)
    #expect(exact.preprocessing.jpegScale == .full)
    #expect(fast.preprocessing.sourceWidth == 1000 && fast.preprocessing.sourceHeight == 760)
    #expect(fast.preprocessing.orientation == .right)
    #expect(fast.preprocessing.cropRect == exact.preprocessing.cropRect)
    #expect(fast.preprocessing.cropRect == PixelRect(x: 190, y: 310, width: 380, height: 380))
    let difference = zip(Self.scores(fast), Self.scores(exact)).map { abs($0 - $1) }.max() ?? 1
    #expect(difference < 0.02, "mean colors differ by \(difference)")
  }

  @Test func filesTakeTheSamePathAsBytes() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "jpeg-scaling-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("photo.jpg")
    try Self.photo.write(to: file)
    let fromFile = try Self.classifier.classify(.file(file), options: Self.raw)
    let fromData = try Self.classifier.classify(.data(Self.photo), options: Self.raw)
    #expect(fromFile.preprocessing == fromData.preprocessing)
    #expect(Self.scores(fromFile) == Self.scores(fromData))
  }

  @Test func exactModeIgnoresAScaleInTheDecodingOptions() throws {
    var decoding = DecodingOptions()
    decoding.jpegScale = .quarter
    let report = try Self.classifier.classify(
      .data(Self.photo),
      preparation: PreparationOptions(decoding: decoding, jpegScaling: .exact),
      options: Self.raw)
    #expect(report.preprocessing.jpegScale == .full)
  }

  @Test func decodingErrorsStayImageErrors() throws {
    #expect {
      try Self.classifier.classify(.data(Data(Self.photo.prefix(2_000))), options: Self.raw)
    } throws: { error in
      (error as? ClassificationError)?.code == .invalidImage
        && (error as? ClassificationError)?.underlying is ImageDecodingError
    }
  }
}
