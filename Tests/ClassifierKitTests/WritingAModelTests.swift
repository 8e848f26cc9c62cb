import ClassifierKit
import ImagePipeline
import Testing

/// The example of the "Writing a model" article, kept compiling and correct.
struct BrightnessClassifier: ImageClassificationModel {
  let labels = ["dark", "bright"]
  let inputSpec = ModelInputSpec(size: 64, cropAndScale: .scaleFill)

  func classify(prepared input: ModelInput, options: ClassificationOptions)
    throws(ClassificationError) -> [Classification]
  {
    let values = input.tensor.values
    let mean = values.reduce(0, +) / Float(values.count)
    let brightness = (mean - 127.5) / 32
    return Classification.ranked(
      scores: [-brightness, brightness], labels: labels, options: options)
  }
}

@Suite struct WritingAModelTests {
  @Test func articleExampleClassifiesBrightness() async throws {
    let model: any ImageClassificationModel = BrightnessClassifier()
    let light = try RasterImage(width: 2, height: 1, format: .gray, pixels: [250, 240])
    let dark = try RasterImage(width: 2, height: 1, format: .gray, pixels: [5, 20])
    let results = try await model.classify(images: [light, dark], options: .default)
    #expect(results.map { $0.first?.label } == ["bright", "dark"])
    #expect(abs((results[0].first?.confidence ?? 0) - 0.9994) < 1e-3)
  }
}
