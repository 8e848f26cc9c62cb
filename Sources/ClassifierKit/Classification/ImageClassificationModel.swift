import Foundation
public import ImagePipeline

/// A model that assigns labels to a photo: the protocol apps code against, so that a real network
/// runs in production and a ``DummyClassifier`` in tests.
///
/// Like a Core ML model behind Vision, a model declares the input it wants (``inputSpec``: size,
/// crop and scale, normalization) and scores inputs prepared that way
/// (`classify(prepared:options:)`). Everything before that comes with the protocol:
/// `classify(_:preparation:options:)` takes an `ImageSource` (a file, encoded bytes or a
/// decoded `RasterImage`), reads a file once, decodes a large JPEG only as far as the input needs,
/// applies the orientation, crops and scales, and reports the classifications with the model's
/// name and the file format. Synchronous and asynchronous classification share one name: the
/// `async` overload of `classify(_:preparation:options:)` does the same from async code on a
/// worker of the shared ``ComputeExecutor``, so the cooperative pool is never blocked by the
/// computation; the synchronous one runs on the calling thread.
///
/// Implement ``labels``, ``inputSpec`` and `classify(prepared:options:)`; a model that can run
/// several inputs at once also implements `classify(prepared:options:)`.
public protocol ImageClassificationModel: Sendable {
  /// The model's labels in class-index order.
  var labels: [String] { get }

  /// How photos are prepared for the model: input size, crop and scale, normalization, channel
  /// order.
  var inputSpec: ModelInputSpec { get }

  /// The model's name, as reports give it; the type's name by default.
  var name: String { get }

  /// Scores one input prepared as ``inputSpec`` describes.
  ///
  /// - Parameters:
  ///   - input: The `[1, 3, height, width]` tensor and its provenance.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first, at most `options.maximumCount`.
  /// - Throws: ``ClassificationError`` describing why the input could not be classified.
  func classify(prepared input: ModelInput, options: ClassificationOptions)
    throws(ClassificationError) -> [Classification]

  /// Scores several prepared inputs, returning one list per input in the same order.
  ///
  /// The default classifies them one after another.
  ///
  /// - Parameters:
  ///   - inputs: The inputs, each prepared as ``inputSpec`` describes.
  ///   - options: How many labels to return per input, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per input, each best first.
  /// - Throws: ``ClassificationError`` describing why an input could not be classified.
  func classify(prepared inputs: [ModelInput], options: ClassificationOptions)
    throws(ClassificationError) -> [[Classification]]

  /// Prepares and classifies one photo, reporting what was done and the time of each stage.
  ///
  /// The default decodes the photo as ``inputSpec`` needs it
  /// (`ImageSource.decoded(for:decoder:orientation:jpegScaling:plan:)`, which plans the photo once),
  /// turns it into the input and calls `classify(prepared:options:)`. It runs on the calling
  /// thread; from async code use `classify(_:preparation:options:)`.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - preparation: Decoding limits, JPEG reduction and orientation override.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, the model's name and the photo's file format.
  /// - Throws: ``ClassificationError`` with code `invalidImage` (the `ImageDecodingError` as
  ///   ``ClassificationError/underlying``) when the photo cannot be read, decoded or prepared, or
  ///   what `classify(prepared:options:)` throws.
  func classify(
    _ source: ImageSource, preparation: PreparationOptions, options: ClassificationOptions
  ) throws(ClassificationError) -> ClassificationReport
}

extension ImageClassificationModel {
  /// The type's name.
  public var name: String { String(describing: Self.self) }

  /// Scores several prepared inputs one after another.
  ///
  /// - Parameters:
  ///   - inputs: The inputs, each prepared as ``inputSpec`` describes.
  ///   - options: How many labels to return per input, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per input, each best first.
  /// - Throws: What `classify(prepared:options:)` throws.
  public func classify(prepared inputs: [ModelInput], options: ClassificationOptions)
    throws(ClassificationError) -> [[Classification]]
  {
    var results: [[Classification]] = []
    results.reserveCapacity(inputs.count)
    for input in inputs {
      results.append(try classify(prepared: input, options: options))
    }
    return results
  }

  /// Decodes and prepares the photo as ``inputSpec`` says, then classifies it, timing each stage.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - preparation: Decoding limits, JPEG reduction and orientation override.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, the model's name and the photo's file format.
  /// - Throws: ``ClassificationError`` with code `invalidImage`, or what
  ///   `classify(prepared:options:)` throws.
  public func classify(
    _ source: ImageSource, preparation: PreparationOptions, options: ClassificationOptions
  ) throws(ClassificationError) -> ClassificationReport {
    let start = ContinuousClock.now
    let (input, format, decoded, prepared) = try prepareInput(source, preparation: preparation)
    let classifications = try classify(prepared: input, options: options)
    let end = ContinuousClock.now
    return ClassificationReport(
      classifications: classifications, preprocessing: input.provenance,
      timings: ClassificationTimings(
        decode: decoded - start, preprocess: prepared - decoded, inference: end - prepared),
      modelName: name, format: format)
  }

  /// Classifies one photo with default preparation.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, the model's name and the photo's file format.
  /// - Throws: What `classify(_:preparation:options:)` throws.
  public func classify(_ source: ImageSource, options: ClassificationOptions = .default)
    throws(ClassificationError) -> ClassificationReport
  {
    try classify(source, preparation: .default, options: options)
  }

  /// Classifies one photo with the top five softmax scores.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - preparation: Decoding limits, JPEG reduction and orientation override.
  /// - Returns: The classifications, the model's name and the photo's file format.
  /// - Throws: What `classify(_:preparation:options:)` throws.
  public func classify(_ source: ImageSource, preparation: PreparationOptions)
    throws(ClassificationError) -> ClassificationReport
  {
    try classify(source, preparation: preparation, options: .default)
  }

  /// Classifies one photo from async code on a worker of the shared ``ComputeExecutor``, so that
  /// the computation holds no thread of the cooperative pool and many concurrent callers share a
  /// bounded number of threads and a bounded amount of memory.
  ///
  /// Concurrent calls on the same `NetworkClassifier` with the same options may run as one
  /// batch (``ComputeLimits/batchingWindow``); each caller still gets its own result.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - preparation: Decoding limits, JPEG reduction and orientation override.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, the model's name and the photo's file format.
  /// - Throws: What `classify(_:preparation:options:)` throws; ``ClassificationError`` with
  ///   code `overloaded` when ``ComputeLimits/maximumQueuedCount`` callers already wait, or
  ///   `cancelled` when the calling task is cancelled before a worker takes the photo.
  public func classify(
    _ source: ImageSource, preparation: PreparationOptions = .default,
    options: ClassificationOptions = .default
  ) async throws(ClassificationError) -> ClassificationReport {
    try await ComputeExecutor.shared.classify(
      source, with: self, preparation: preparation, options: options)
  }

  /// Classifies one decoded image on a worker of the shared ``ComputeExecutor``; its
  /// `RasterImage/orientation` is applied.
  ///
  /// - Parameters:
  ///   - image: The photo.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first.
  /// - Throws: What `classify(_:preparation:options:)` throws.
  public func classify(image: RasterImage, options: ClassificationOptions = .default)
    async throws(ClassificationError) -> [Classification]
  {
    try await classify(.image(image), options: options).classifications
  }

  /// Classifies several decoded images with one `classify(prepared:options:)` call on a worker
  /// of the shared ``ComputeExecutor``, returning one list per image in the same order.
  ///
  /// - Parameters:
  ///   - images: The photos; each one's orientation is applied.
  ///   - options: How many labels to return per image, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per image, each best first.
  /// - Throws: ``ClassificationError`` with code `invalidImage` naming the image's position, or
  ///   what the model throws.
  public func classify(images: [RasterImage], options: ClassificationOptions = .default)
    async throws(ClassificationError) -> [[Classification]]
  {
    try await ComputeExecutor.shared.classify(images: images, with: self, options: options)
  }

  /// Decodes and prepares one photo as ``inputSpec`` says, noting when each stage ended.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - preparation: Decoding limits, JPEG reduction and orientation override.
  ///   - plan: The preparation plan already made from the photo's header, or `nil`.
  /// - Returns: The input, the photo's file format and the instants decoding and preparing ended.
  /// - Throws: ``ClassificationError`` with code `invalidImage`.
  func prepareInput(
    _ source: ImageSource, preparation: PreparationOptions, plan: PreparationPlan? = nil
  ) throws(ClassificationError)
    -> (
      input: ModelInput, format: ImageFormat?, decoded: ContinuousClock.Instant,
      prepared: ContinuousClock.Instant
    )
  {
    let photo = try decode(source, preparation: preparation, plan: plan)
    let decoded = ContinuousClock.now
    let input = try prepare(photo, naming: source.name)
    return (input, photo.format, decoded, ContinuousClock.now)
  }

  private func decode(
    _ source: ImageSource, preparation: PreparationOptions, plan: PreparationPlan?
  ) throws(ClassificationError) -> DecodedPhoto {
    do {
      return try source.decoded(
        for: inputSpec, decoder: ImageDecoder(options: preparation.decoding),
        orientation: preparation.orientation, jpegScaling: preparation.jpegScaling, plan: plan)
    } catch {
      throw ClassificationError(
        .invalidImage, "\(source.name) cannot be decoded", underlying: error)
    }
  }

  private func prepare(_ photo: DecodedPhoto, naming name: String)
    throws(ClassificationError) -> ModelInput
  {
    do {
      return try photo.modelInput()
    } catch {
      throw ClassificationError(.invalidImage, "\(name) cannot be prepared", underlying: error)
    }
  }
}
