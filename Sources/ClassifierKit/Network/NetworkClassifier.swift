import Foundation
public import ImagePipeline
public import NeuralCore
public import NeuralLayers

/// A classifier backed by a neural network: it prepares the photo as its ``ModelDescription``
/// says, runs the network and ranks the scores.
///
/// Callers pass only a photo (an `ImageSource`: a file, encoded bytes or a decoded
/// `RasterImage`) to `classify(_:preparation:options:)` or, from async
/// code, `classify(_:preparation:options:)`; the classifier decodes it
/// (a large JPEG only as far as its input needs), applies its orientation, crops and scales it to
/// the input size, normalizes it, and returns the classifications with softmax confidences (raw
/// scores on request), what was done and how long each stage took. Batches of prepared inputs run
/// as one network call of `[N, 3, S, S]` per ``maximumBatchSize`` inputs.
///
/// The classifier is an immutable value holding a loaded network, so one instance can serve any
/// number of concurrent calls; from async code they run on the shared ``ComputeExecutor``, which
/// stacks concurrent photos into batches of up to ``maximumBatchSize``.
public struct NetworkClassifier: ImageClassificationModel, DynamicallyBatched {
  /// The input preparation, labels and tensor names of the network.
  public let model: ModelDescription
  /// The most images one network call stacks; larger batches are split, bounding memory.
  public var maximumBatchSize: Int

  private let backend: NetworkBackend
  /// Names this loaded network and description for dynamic batching; copies share it.
  private let identity = BatchingIdentity()

  /// The identity concurrent classifications are batched under.
  var batchingIdentity: ObjectIdentifier { ObjectIdentifier(identity) }

  /// The labels in class-index order.
  public var labels: [String] { model.labels }

  /// How photos are prepared for the network, from ``model``.
  public var inputSpec: ModelInputSpec { model.input }

  /// The model's name, from ``model``.
  public var name: String { model.name }

  /// Creates a classifier around a network built from NeuralCore layers.
  ///
  /// The layers' graph is planned once, here, into the session every call runs; a graph that
  /// cannot be planned fails each classification with that error.
  ///
  /// - Parameters:
  ///   - network: A loaded network mapping `[batch, 3, height, width]` to `[batch, classes]`.
  ///   - description: The network's input preparation and labels.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  public init(network: some Layer, description: ModelDescription, threadCount: Int? = nil) {
    let threads = max(1, threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
    self.init(description: description, backend: NetworkBackend(network, threadCount: threads))
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
      backend: NetworkBackend(session: session, input: input.name, output: output.name))
  }

  private init(description: ModelDescription, backend: NetworkBackend) {
    model = description
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

  /// Runs the network on one prepared input and ranks its scores.
  ///
  /// - Parameters:
  ///   - input: The `[1, 3, height, width]` input prepared as ``inputSpec`` describes.
  ///   - options: How many labels to return, the minimum confidence, and the scoring.
  /// - Returns: The classifications, best first.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when the input has another
  ///   shape, `inferenceFailed` when the network fails.
  public func classify(prepared input: ModelInput, options: ClassificationOptions)
    throws(ClassificationError) -> [Classification]
  {
    try classify(prepared: [input], options: options)[0]
  }

  /// Runs the network on prepared inputs, one network call per ``maximumBatchSize`` inputs.
  ///
  /// With softmax scoring, a model's ``ModelDescription/unknownThreshold`` raises the minimum
  /// confidence, so a photo below it gets no classification.
  ///
  /// - Parameters:
  ///   - inputs: The inputs, each `[1, 3, height, width]` as ``inputSpec`` describes.
  ///   - options: How many labels to return per input, the minimum confidence, and the scoring.
  /// - Returns: One list of classifications per input, in order.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` naming an input of another
  ///   shape, `inferenceFailed` when the network fails.
  public func classify(prepared inputs: [ModelInput], options: ClassificationOptions)
    throws(ClassificationError) -> [[Classification]]
  {
    let expected = [1, 3, model.input.height, model.input.width]
    for (position, input) in inputs.enumerated() where input.tensor.shape != expected {
      throw ClassificationError(
        .invalidArgument,
        "input \(position) has shape \(input.tensor.shape), the model takes \(expected)")
    }
    var results: [[Classification]] = []
    results.reserveCapacity(inputs.count)
    var options = options
    if let threshold = model.unknownThreshold, options.scoring == .softmax {
      // Below the model's unknown threshold a photo is of no label.
      options.minimumConfidence = max(options.minimumConfidence, threshold)
    }
    if model.scoresAreProbabilities, options.scoring == .softmax {
      // The network's softmax already made them probabilities.
      options.scoring = .raw
    }
    var start = 0
    while start < inputs.count {
      let end = min(inputs.count, start + max(1, maximumBatchSize))
      let scores = try logits(for: try stack(inputs[start..<end]))
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

  /// Stacks `[1, 3, H, W]` inputs into one `[N, 3, H, W]` tensor.
  private func stack(_ inputs: ArraySlice<ModelInput>) throws(ClassificationError) -> Tensor {
    var values: [Float] = []
    values.reserveCapacity(inputs.reduce(0) { $0 + $1.tensor.values.count })
    for input in inputs { values += input.tensor.values }
    do {
      return try Tensor(
        shape: [inputs.count, 3, model.input.height, model.input.width], scalars: values)
    } catch {
      throw ClassificationError(.inferenceFailed, "cannot stack the batch", underlying: error)
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
