import ClassifierKit
import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import Testing

/// The default model on the reference photos against ONNX Runtime's logits.
@Suite struct ReferencePhotoTests {
  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func defaultModelReproducesTheReferenceClassifications() throws {
    let classifier = try ModelFixtures.classifierForPhotos()
    // The references were made from full-size decodes (Docs/Design.md section 2).
    let exact = PreparationOptions(jpegScaling: .exact)
    // Twelve in ../shared/models, six in the tree rebuilt from PyPI.
    #expect(ModelFixtures.photos.count >= 6)
    for photo in ModelFixtures.photos where ModelFixtures.corpusStems.contains(photo.stem) {
      let reference = try ModelFixtures.reference("\(photo.stem).logits.npy").scalars
      let expected = ModelFixtures.softmax(reference)
      let referenceTop5 = reference.indices.sorted { reference[$0] > reference[$1] }.prefix(5)
      #expect(Array(referenceTop5) == photo.referenceTop5, "manifest top-5 of \(photo.stem)")

      let raw = try classifier.classify(
        .file(photo.file), preparation: exact,
        options: ClassificationOptions(maximumCount: 1000, scoring: .raw))
      var logits = [Float](repeating: .nan, count: 1000)
      for classification in raw.classifications {
        logits[classification.index] = classification.confidence
      }
      // The same ranking the classifier applies by default, from the same single network run.
      let top5 = Classification.ranked(scores: logits, labels: classifier.labels, options: .default)
      let logitDifference = zip(logits, reference).map { abs($0 - $1) }.max() ?? .nan
      let confidenceDifference =
        top5.map { abs(Double($0.confidence) - expected[$0.index]) }.max() ?? .nan
      print(
        "\(photo.stem): top-1 \(top5.first?.label ?? "-") \(top5.first?.confidence ?? .nan), "
          + "max |logit - ORT| \(logitDifference), max |confidence - softmax(ORT)| "
          + "\(confidenceDifference), \(raw.timings)")
      #expect(top5.first?.index == referenceTop5.first, "top-1 of \(photo.stem)")
      #expect(Set(top5.map(\.index)) == Set(referenceTop5), "top-5 set of \(photo.stem)")
      #expect(top5.first?.label == classifier.labels[referenceTop5.first ?? 0])
      if photo.isPNG {
        #expect(confidenceDifference <= 1e-3, "confidences of \(photo.stem)")
      }
      #expect(raw.preprocessing.cropRect.width > 0)
    }
  }

  /// The default automatic JPEG scaling decodes the larger JPEG photos at 1/2; it keeps
  /// their best label and the exact mode's provenance.
  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func automaticJPEGScalingKeepsTheBestLabel() throws {
    let classifier = try ModelFixtures.classifierForPhotos()
    #expect(PreparationOptions.default.jpegScaling == .automatic)
    // Photos decoded at full size either way give identical results; the others are compared.
    let reduced = try ModelFixtures.photos.filter { photo in
      let info = try ImageDecoder().inspect(contentsOf: photo.file)
      return try classifier.model.input.jpegScale(for: info) != .full
    }
    #expect(reduced.map(\.stem).sorted() == ModelFixtures.expectedReducedStems)
    #expect(!ModelFixtures.expectedReducedStems.isEmpty)
    let visited = reduced.filter { ModelFixtures.reducedStems.contains($0.stem) }
    #expect(!visited.isEmpty)
    for photo in visited {
      let fast = try classifier.classify(.file(photo.file))
      #expect(fast.preprocessing.jpegScale == .half, "\(photo.stem)")
      let exact = try classifier.classify(
        .file(photo.file), preparation: PreparationOptions(jpegScaling: .exact))
      #expect(fast.classifications.first?.index == exact.classifications.first?.index)
      #expect(fast.preprocessing.cropRect == exact.preprocessing.cropRect)
      #expect(fast.preprocessing.sourceWidth == exact.preprocessing.sourceWidth)
      print(
        "\(photo.stem): decoded at 1/\(fast.preprocessing.jpegScale.denominator), top-1 "
          + "\(fast.classifications.first?.label ?? "-") vs exact "
          + "\(exact.classifications.first?.label ?? "-")")
    }
  }
}
