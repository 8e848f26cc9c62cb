public import ImagePipeline

/// A model that assigns labels to an image: the protocol apps code against, so that a real
/// network runs in production and a ``DummyClassifier`` in tests.
///
/// Conforming types take an upright or EXIF-tagged `RasterImage`; networks that need a
/// fixed input size prepare it themselves (orientation, crop and scale, normalization), so callers
/// pass only the photo. Implement ``classify(image:options:)``; the batch method has a default.
public protocol ImageClassificationModel: Sendable {
  /// The model's labels in class-index order.
  var labels: [String] { get }

  /// Classifies one image.
  ///
  /// - Parameters:
  ///   - image: The photo; its `RasterImage/orientation` is applied before classification.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first, at most `options.maximumCount`.
  /// - Throws: An error describing why the image could not be classified.
  func classify(image: RasterImage, options: ClassificationOptions) async throws -> [Classification]

  /// Classifies several images, returning one list per image in the same order.
  ///
  /// - Parameters:
  ///   - images: The photos.
  ///   - options: How many labels to return per image, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per image, each best first.
  /// - Throws: An error describing why an image could not be classified.
  func classify(images: [RasterImage], options: ClassificationOptions) async throws
    -> [[Classification]]
}

extension ImageClassificationModel {
  /// Classifies one image with ``ClassificationOptions/default`` (top 5, softmax).
  ///
  /// - Parameter image: The photo.
  /// - Returns: The classifications, best first.
  /// - Throws: An error describing why the image could not be classified.
  public func classify(image: RasterImage) async throws -> [Classification] {
    try await classify(image: image, options: .default)
  }

  /// Classifies several images one after another.
  ///
  /// - Parameters:
  ///   - images: The photos.
  ///   - options: How many labels to return per image, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per image, each best first.
  /// - Throws: An error describing why an image could not be classified.
  public func classify(images: [RasterImage], options: ClassificationOptions) async throws
    -> [[Classification]]
  {
    var results: [[Classification]] = []
    results.reserveCapacity(images.count)
    for image in images {
      results.append(try await classify(image: image, options: options))
    }
    return results
  }
}
