public import ImagePipeline

/// The result of classifying one photo together with how it was obtained.
public struct ClassificationReport: Sendable, Hashable {
  /// The classifications, best first.
  public let classifications: [Classification]
  /// What preprocessing did: the stored source size, the orientation applied, the upright size and
  /// the crop rectangle in upright source pixels.
  package let preprocessing: PreprocessingProvenance
  /// The time spent in each stage.
  package let timings: ClassificationTimings
  /// The name of the model that produced the result.
  public let modelName: String
  /// The file format the photo was decoded from; `nil` when it was given decoded.
  public let format: ImageFormat?

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - classifications: The classifications, best first.
  ///   - preprocessing: What preprocessing did.
  ///   - timings: The time spent in each stage.
  ///   - modelName: The model's name.
  ///   - format: The file format the photo was decoded from; `nil` for a decoded image.
  package init(
    classifications: [Classification], preprocessing: PreprocessingProvenance,
    timings: ClassificationTimings, modelName: String, format: ImageFormat? = nil
  ) {
    self.classifications = classifications
    self.preprocessing = preprocessing
    self.timings = timings
    self.modelName = modelName
    self.format = format
  }
}
