public import Foundation
public import ImagePipeline
public import NeuralCore

/// A classifier backed by a neural network: it prepares the photo as its ``ModelDescription``
/// says, runs the network and ranks the scores.
///
/// Callers pass only a photo (encoded bytes, a file, or a decoded `RasterImage`); the
/// classifier decodes it, applies its orientation, crops and scales it to the input size,
/// normalizes it, and returns the classifications with softmax confidences (raw scores on
/// request). ``report(for:orientation:options:)-(RasterImage,_,_)`` also returns what was done
/// and how long each stage took. Batches run as one network call of `[N, 3, S, S]`.
///
/// The classifier is an immutable value holding a loaded network, so one instance can serve any
/// number of concurrent calls.
public struct NetworkClassifier: ImageClassificationModel {
  /// The input preparation, labels and tensor names of the network.
  public let model: ModelDescription
  /// How encoded photos are decoded, including the maximum pixel count (100 MP by default).
  ///
  /// Its `DecodingOptions.jpegScale` is not used: ``jpegScaling`` picks the reduction per photo.
  public var decodingOptions: DecodingOptions
  /// Whether encoded JPEG photos may be decoded at a DCT-domain reduction;
  /// `JPEGScalingPolicy.automatic` by default.
  ///
  /// Automatic decodes a large photo at 1/2, 1/4 or 1/8 of its size when the crop to the input
  /// still only shrinks, which is several times faster for phone photos and changes the logits
  /// a little (Docs/Performance.md gives the measured cost); `JPEGScalingPolicy.exact` decodes
  /// at full size and reproduces the reference preprocessing. Photos passed already decoded are
  /// not affected.
  public var jpegScaling: JPEGScalingPolicy
  /// The most images one network call stacks; larger batches are split, bounding memory.
  public var maximumBatchSize: Int

  private let backend: NetworkBackend

  /// The labels in class-index order.
  public var labels: [String] { model.labels }

  /// Creates a classifier around a network built from NeuralCore layers.
  ///
  /// - Parameters:
  ///   - network: A loaded network mapping `[batch, 3, height, width]` to `[batch, classes]`.
  ///   - description: The network's input preparation and labels.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  public init(network: some Layer, description: ModelDescription, threadCount: Int? = nil) {
    let threads = max(1, threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
    self.init(description: description, backend: .layer(network, threadCount: threads))
  }

  /// Creates a classifier around an imported ONNX network.
  ///
  /// - Parameters:
  ///   - session: The loaded network.
  ///   - description: The network's input preparation and labels; its input and output names,
  ///     when set, must exist in the network.
  /// - Throws: ``ClassificationError`` with code `invalidModelDescription` when a named input or
  ///   output does not exist, the input size differs from the declared input, or the label count
  ///   differs from the declared output size.
  public init(session: InferenceSession, description: ModelDescription)
    throws(ClassificationError)
  {
    let input = try Self.resolve(
      description.inputName, in: session.inputs, field: "inputName", kind: "input")
    let output = try Self.resolve(
      description.outputName, in: session.outputs, field: "outputName", kind: "output")
    if let shape = input.shape, shape.count == 4 {
      let expected = [3, description.input.height, description.input.width]
      for (declared, wanted) in zip(shape.dropFirst(), expected)
      where declared.map({ $0 != wanted }) ?? false {
        throw ClassificationError(
          .invalidModelDescription,
          "field 'inputSize': input '\(input.name)' is declared "
            + shape.map { $0.map(String.init) ?? "?" }.joined(separator: "x")
            + ", the description gives [N, 3, \(expected[1]), \(expected[2])]")
      }
    }
    if let shape = output.shape, shape.count >= 2, let classes = shape[1],
      shape.dropFirst(2).allSatisfy({ $0 == 1 }), classes != description.labels.count
    {
      throw ClassificationError(
        .invalidModelDescription,
        "field 'labels': output '\(output.name)' has \(classes) classes but the label list has "
          + "\(description.labels.count) labels")
    }
    self.init(
      description: description,
      backend: .session(session, input: input.name, output: output.name))
  }

  private init(description: ModelDescription, backend: NetworkBackend) {
    model = description
    decodingOptions = DecodingOptions()
    jpegScaling = .automatic
    maximumBatchSize = 8
    self.backend = backend
  }

  private static func resolve(
    _ name: String?, in values: [TensorDescription], field: String, kind: String
  ) throws(ClassificationError) -> TensorDescription {
    if let name {
      guard let value = values.first(where: { $0.name == name }) else {
        throw ClassificationError(
          .invalidModelDescription,
          "field '\(field)': the model has no \(kind) '\(name)' (it has "
            + "\(values.map { "'\($0.name)'" }.joined(separator: ", ")))")
      }
      return value
    }
    guard let first = values.first else {
      throw ClassificationError(.invalidModelDescription, "the model declares no \(kind)")
    }
    return first
  }

  // MARK: - Classifying

  /// Classifies an encoded photo (PNG or JPEG, format sniffed from its bytes).
  ///
  /// A large JPEG is decoded at a DCT-domain reduction unless ``jpegScaling`` is
  /// `JPEGScalingPolicy.exact`; the provenance still reports full-size pixels.
  ///
  /// - Parameters:
  ///   - data: The encoded photo.
  ///   - orientation: An orientation overriding the file's EXIF one; `nil` uses the file's.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications with provenance and timings.
  /// - Throws: ``ClassificationError`` with code `invalidImage` (the `ImageDecodingError` as
  ///   ``ClassificationError/underlying``) or `inferenceFailed`.
  public func report(
    for data: Data, orientation: ImageOrientation? = nil, options: ClassificationOptions = .default
  ) throws(ClassificationError) -> ClassificationReport {
    try report(orientation: orientation, options: options, name: "the photo") { _ in data }
  }

  /// Classifies a photo file (PNG or JPEG, format sniffed from its bytes).
  ///
  /// A large JPEG is decoded at a DCT-domain reduction unless ``jpegScaling`` is
  /// `JPEGScalingPolicy.exact`; the provenance still reports full-size pixels.
  ///
  /// - Parameters:
  ///   - url: The file's URL.
  ///   - orientation: An orientation overriding the file's EXIF one; `nil` uses the file's.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications with provenance and timings (decoding includes reading).
  /// - Throws: ``ClassificationError`` with code `invalidImage` (the `ImageDecodingError` as
  ///   ``ClassificationError/underlying``) or `inferenceFailed`.
  public func report(
    forFileAt url: URL, orientation: ImageOrientation? = nil,
    options: ClassificationOptions = .default
  ) throws(ClassificationError) -> ClassificationReport {
    try report(orientation: orientation, options: options, name: "the photo \(url.path)") {
      decoder throws(ImageDecodingError) in try decoder.read(contentsOf: url)
    }
  }

  /// Reads, inspects and decodes (reduced when allowed), then prepares and classifies.
  private func report(
    orientation: ImageOrientation?, options: ClassificationOptions, name: String,
    read: (ImageDecoder) throws(ImageDecodingError) -> Data
  ) throws(ClassificationError) -> ClassificationReport {
    let clock = ContinuousClock()
    let start = clock.now
    let decoder = ImageDecoder(options: decodingOptions)
    let photo: DecodedPhoto
    do {
      photo = try model.input.decode(
        read(decoder), decoder: decoder, orientation: orientation, jpegScaling: jpegScaling)
    } catch {
      throw ClassificationError(.invalidImage, "\(name) cannot be decoded", underlying: error)
    }
    let decoded = clock.now
    let prepared = try prepare { () throws(ImageDecodingError) in
      try model.input.tensor(fromDecoded: photo)
    }
    return try classify(
      prepared, options: options, decodeTime: decoded - start, preprocessStart: decoded)
  }

  /// Classifies a decoded photo.
  ///
  /// - Parameters:
  ///   - image: The photo.
  ///   - orientation: An orientation overriding the image's own; `nil` uses the image's.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications with provenance and timings (decoding time zero).
  /// - Throws: ``ClassificationError`` with code `invalidImage` or `inferenceFailed`.
  public func report(
    for image: RasterImage, orientation: ImageOrientation? = nil,
    options: ClassificationOptions = .default
  ) throws(ClassificationError) -> ClassificationReport {
    try report(for: image, orientation: orientation, options: options, decodeTime: .zero)
  }

  private func report(
    for image: RasterImage, orientation: ImageOrientation?, options: ClassificationOptions,
    decodeTime: Duration
  ) throws(ClassificationError) -> ClassificationReport {
    let start = ContinuousClock.now
    return try classify(
      prepare(image, orientation: orientation), options: options, decodeTime: decodeTime,
      preprocessStart: start)
  }

  /// Runs the network on a prepared input and ranks the scores, timing from `preprocessStart`.
  private func classify(
    _ prepared: (tensor: Tensor, provenance: PreprocessingProvenance),
    options: ClassificationOptions, decodeTime: Duration,
    preprocessStart start: ContinuousClock.Instant
  ) throws(ClassificationError) -> ClassificationReport {
    let clock = ContinuousClock()
    let preprocessed = clock.now
    let scores = try logits(for: prepared.tensor)
    let classifications = Classification.ranked(
      scores: scores.scalars, labels: model.labels, options: options)
    let end = clock.now
    return ClassificationReport(
      classifications: classifications, preprocessing: prepared.provenance,
      timings: ClassificationTimings(
        decode: decodeTime, preprocess: preprocessed - start, inference: end - preprocessed),
      modelName: model.name)
  }

  /// Classifies one image; the protocol's entry point.
  ///
  /// - Parameters:
  ///   - image: The photo; its orientation is applied.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first.
  /// - Throws: ``ClassificationError`` with code `invalidImage` or `inferenceFailed`.
  public func classify(image: RasterImage, options: ClassificationOptions) async throws
    -> [Classification]
  {
    try report(for: image, options: options).classifications
  }

  /// Classifies several images with one network call per ``maximumBatchSize`` images.
  ///
  /// - Parameters:
  ///   - images: The photos; each one's orientation is applied.
  ///   - options: How many labels to return per image, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per image, in order.
  /// - Throws: ``ClassificationError`` with code `invalidImage` or `inferenceFailed`.
  public func classify(images: [RasterImage], options: ClassificationOptions) async throws
    -> [[Classification]]
  {
    try classifications(for: images, options: options)
  }

  /// Classifies several images synchronously, stacking them into `[N, 3, S, S]` network calls.
  ///
  /// - Parameters:
  ///   - images: The photos; each one's orientation is applied.
  ///   - options: How many labels to return per image, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per image, in order.
  /// - Throws: ``ClassificationError`` with code `invalidImage` naming the image's position, or
  ///   `inferenceFailed`.
  public func classifications(for images: [RasterImage], options: ClassificationOptions)
    throws(ClassificationError) -> [[Classification]]
  {
    var results: [[Classification]] = []
    results.reserveCapacity(images.count)
    var start = 0
    while start < images.count {
      let end = min(images.count, start + max(1, maximumBatchSize))
      var values: [Float] = []
      var shape: [Int] = []
      for position in start..<end {
        let input: ModelInput
        do {
          input = try model.input.tensor(from: images[position])
        } catch {
          throw ClassificationError(
            .invalidImage, "image \(position) cannot be prepared", underlying: error)
        }
        shape = input.tensor.shape
        values += input.tensor.values
      }
      shape[0] = end - start
      let batch: Tensor
      do {
        batch = try Tensor(shape: shape, scalars: values)
      } catch {
        throw ClassificationError(.inferenceFailed, "cannot stack the batch", underlying: error)
      }
      let scores = try logits(for: batch)
      let classes = model.labels.count
      for row in 0..<(end - start) {
        results.append(
          Classification.ranked(
            scores: Array(scores.scalars[(row * classes)..<((row + 1) * classes)]),
            labels: model.labels, options: options))
      }
      start = end
    }
    return results
  }

  // MARK: - Stages

  /// Prepares a photo as the network's input: orientation, crop and scale, normalization.
  ///
  /// - Parameters:
  ///   - image: The photo.
  ///   - orientation: An orientation overriding the image's own; `nil` uses the image's.
  /// - Returns: The `[1, 3, S, S]` input tensor and what preprocessing did.
  /// - Throws: ``ClassificationError`` with code `invalidImage` (the `ImageDecodingError` as
  ///   ``ClassificationError/underlying``).
  public func prepare(_ image: RasterImage, orientation: ImageOrientation? = nil)
    throws(ClassificationError) -> (tensor: Tensor, provenance: PreprocessingProvenance)
  {
    try prepare { () throws(ImageDecodingError) in
      try model.input.tensor(from: image, orientation: orientation)
    }
  }

  private func prepare(_ input: () throws(ImageDecodingError) -> ModelInput)
    throws(ClassificationError) -> (tensor: Tensor, provenance: PreprocessingProvenance)
  {
    do {
      let input = try input()
      return (try Tensor(shape: input.tensor.shape, scalars: input.tensor.values), input.provenance)
    } catch {
      throw ClassificationError(.invalidImage, "the photo cannot be prepared", underlying: error)
    }
  }

  /// Runs the network on prepared inputs and returns one raw score per class and image.
  ///
  /// - Parameter input: `[batch, 3, height, width]`, prepared as ``model`` describes.
  /// - Returns: `[batch, classes]` scores (logits for the bundled models).
  /// - Throws: ``ClassificationError`` with code `inferenceFailed` (the `NeuralCoreError` as
  ///   ``ClassificationError/underlying``), or `invalidModelDescription` when the network's
  ///   output count differs from the label count.
  public func logits(for input: Tensor) throws(ClassificationError) -> Tensor {
    let output: Tensor
    do {
      output = try backend.run(input)
    } catch {
      throw ClassificationError(.inferenceFailed, "the network failed", underlying: error)
    }
    let batch = input.shape.first ?? 1
    let classes = model.labels.count
    guard batch > 0, output.count == batch * classes else {
      throw ClassificationError(
        .invalidModelDescription,
        "the network outputs \(output.shape) for \(batch) images, but the model has "
          + "\(classes) labels")
    }
    do {
      return try Tensor(shape: [batch, classes], scalars: output.scalars)
    } catch {
      throw ClassificationError(.inferenceFailed, "unexpected output shape", underlying: error)
    }
  }
}
