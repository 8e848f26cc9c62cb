package import Foundation
package import ImagePipeline
package import ModelFormats
import NeuralCore

/// The backbone a trained classifier stands on: EfficientNet-Lite0 up to its pooled features
/// (the 1280 values its ImageNet classifier reads), run batched as a planned graph.
///
/// ``ClassifierTrainer`` extracts features with it, and writes the trained classifier as the
/// same network with a new last layer (``classifierGraph(head:)``), so the result is one ONNX
/// file that runs anywhere ONNX runs.
package struct FeatureExtractor: Sendable {
  /// How photos are prepared for the backbone: the EfficientNet-Lite0 recipe.
  package let inputSpec: ModelInputSpec
  /// The length of one feature vector.
  package let featureCount: Int
  /// The most inputs one network call stacks.
  package var batchSize: Int
  /// A name for the backbone and its weights, which keys the feature cache: the architecture
  /// and the start of the checkpoint's SHA-256.
  package let identity: String

  /// The threads one network call may use.
  package let threadCount: Int
  private let session: InferenceSession
  private let parameters: [String: Tensor]
  private let architecture: EfficientNetLite

  private init(
    architecture: EfficientNetLite, parameters: [String: Tensor], identity: String,
    threadCount: Int?
  ) throws(ModelFormatsError) {
    self.architecture = architecture
    self.parameters = parameters
    self.identity = identity
    let options = SessionOptions(threadCount: threadCount)
    self.threadCount = options.threadCount
    session = try InferenceSession(
      model: architecture.graph(loading: parameters), options: options)
    inputSpec = .efficientNetLite(size: architecture.inputSize)
    featureCount = architecture.headChannels
    batchSize = 8
  }

  /// Loads EfficientNet-Lite0's backbone from its checkpoint.
  ///
  /// - Parameters:
  ///   - checkpoint: The `efficientnet-lite0-57934424.pth` file; `nil` searches
  ///     `<cache>/models/` in `$VISION_CATALOG_CACHE`, then `$XDG_CACHE_HOME/vision-catalog` (or
  ///     `~/.cache/vision-catalog`), then `.cache` in the package checkout.
  ///   - threadCount: The threads one network call may use; `nil` means every active processor.
  /// - Returns: The extractor.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the checkpoint is
  ///   missing or not an EfficientNet-Lite0 checkpoint, or `VISION_CATALOG_KERNELS` names a
  ///   kernel set this CPU lacks.
  package static func efficientNetLite0(checkpoint: URL? = nil, threadCount: Int? = nil)
    throws(ClassificationError) -> FeatureExtractor
  {
    do {
      _ = try InferenceSession.selectedKernelSet()
    } catch {
      throw ClassificationError(.modelUnavailable, error.message, underlying: error)
    }
    return try DefaultModel.withLite0Checkpoint(checkpoint) { url, tensors in
      let digest = SHA256.hexDigest(try Data(contentsOf: url))
      return try FeatureExtractor(
        architecture: .lite0(), parameters: tensors,
        identity: "efficientnet-lite0-\(digest.prefix(16))", threadCount: threadCount)
    }
  }

  /// The pooled features of prepared inputs, ``batchSize`` inputs per network call.
  ///
  /// - Parameter inputs: Inputs prepared as ``inputSpec`` describes.
  /// - Returns: One vector of ``featureCount`` values per input, in order.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` for an input of another
  ///   shape, `inferenceFailed` when the network fails.
  package func features(for inputs: [ModelInput]) throws(ClassificationError) -> [[Float]] {
    try features(forTensors: inputs.map(\.tensor.values))
  }

  /// The features of `[3, height, width]` input planes, batched.
  func features(forTensors tensors: [[Float]]) throws(ClassificationError) -> [[Float]] {
    let planeCount = 3 * inputSpec.height * inputSpec.width
    if let position = tensors.firstIndex(where: { $0.count != planeCount }) {
      throw ClassificationError(
        .invalidArgument,
        "input \(position) has \(tensors[position].count) values, the backbone takes "
          + "[1, 3, \(inputSpec.height), \(inputSpec.width)]")
    }
    var result: [[Float]] = []
    result.reserveCapacity(tensors.count)
    var start = 0
    while start < tensors.count {
      let end = min(tensors.count, start + max(1, batchSize))
      let rows = try run(Array(tensors[start..<end].joined()), batch: end - start)
      for row in 0..<(end - start) {
        result.append(Array(rows[(row * featureCount)..<((row + 1) * featureCount)]))
      }
      start = end
    }
    return result
  }

  private func run(_ values: [Float], batch: Int) throws(ClassificationError) -> [Float] {
    do {
      let input = try Tensor(
        shape: [batch, 3, inputSpec.height, inputSpec.width], scalars: values)
      let outputs = try session.run([EfficientNetLite.graphInput: input])
      guard let features = outputs[EfficientNetLite.graphFeatures],
        features.count == batch * featureCount
      else {
        throw NeuralCoreError(.missingValue, "the backbone produced no features")
      }
      return features.scalars
    } catch {
      throw ClassificationError(.inferenceFailed, "the backbone failed", underlying: error)
    }
  }

  /// The backbone with `head` as its last layer, as one ONNX graph: input
  /// `EfficientNetLite/graphInput`, outputs `EfficientNetLite/graphOutput` (the head's
  /// logits) and `EfficientNetLite/graphFeatures`.
  ///
  /// - Parameter head: A classifier over this backbone's features.
  /// - Returns: The graph.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when the head reads another
  ///   feature count.
  package func classifierGraph(head: SoftmaxRegression) throws(ClassificationError) -> ONNXModel {
    guard head.featureCount == featureCount else {
      throw ClassificationError(
        .invalidArgument,
        "the head reads \(head.featureCount) features, the backbone gives \(featureCount)")
    }
    do {
      var tensors = parameters
      tensors["_fc.weight"] = try Tensor(
        shape: [head.classCount, featureCount], scalars: head.weights)
      tensors["_fc.bias"] = try Tensor(shape: [head.classCount], scalars: head.biases)
      let network = try EfficientNetLite(
        stages: architecture.stages, inputSize: architecture.inputSize,
        headChannels: architecture.headChannels, classCount: head.classCount)
      return try network.graph(loading: tensors)
    } catch {
      throw ClassificationError(
        .invalidArgument, "cannot build the classifier graph", underlying: error)
    }
  }
}
