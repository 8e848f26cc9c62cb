public import ModelFormats
public import NeuralCore

extension EfficientNetLite {
  /// The name of the image input of ``graph(loading:)``: `[batch, 3, height, width]`.
  public static let graphInput = "input"
  /// The name of the logits output of ``graph(loading:)``: `[batch, classCount]`.
  public static let graphOutput = "logits"
  /// The name of the features output of ``graph(loading:)``: `[batch, headChannels]`, the
  /// pooled head the classifier reads (1280 values in every Lite variant), for training a new
  /// classifier on them.
  public static let graphFeatures = "features"

  /// The network as an ONNX graph with a checkpoint's parameters, each batch normalization
  /// folded into the convolution before it, for NeuralCore's `InferenceSession`.
  ///
  /// A session plans the graph once (fused bias and ReLU6, the blocked channel layout, one memory
  /// plan) and so runs it faster than ``forward(_:threadCount:)``, which calls the layers one by
  /// one; both compute the same logits. Convolutions pad with `auto_pad` `SAME_UPPER`, which is
  /// TensorFlow's `SAME`.
  ///
  /// - Parameter stateDictionary: The checkpoint's tensors by name, as for ``loading(_:)``.
  /// - Returns: A model with input ``graphInput`` and outputs ``graphOutput`` and
  ///   ``graphFeatures``.
  /// - Throws: `NeuralCoreError` as ``loading(_:)`` does.
  public func graph(loading stateDictionary: [String: Tensor]) throws(NeuralCoreError)
    -> ONNXModel
  {
    var writer = LayerGraphWriter(parameters: stateDictionary)
    // Everything up to the classifier, then the classifier: its input is the features output.
    let features = try writer.write(
      Sequential(Array(network.layers.dropLast())), input: Self.graphInput)
    var logits = features
    if let classifier = network.layers.last {
      logits = try writer.write(classifier, input: features)
    }
    let outputs = [(logits, Self.graphOutput), (features, Self.graphFeatures)].map {
      ONNXNode(
        name: $0.1, opType: "Identity", domain: "", inputs: [$0.0], outputs: [$0.1],
        attributes: [])
    }
    let image = ONNXValueType.tensor(
      elementType: .float,
      shape: [.symbolic("batch"), .value(3), .symbolic("height"), .symbolic("width")])
    let scores = ONNXValueType.tensor(
      elementType: .float, shape: [.symbolic("batch"), .value(classCount)])
    let pooled = ONNXValueType.tensor(
      elementType: .float, shape: [.symbolic("batch"), .value(headChannels)])
    return ONNXModel(
      irVersion: 8,
      opsetImports: [ONNXOperatorSetID(domain: "", version: LayerGraphWriter.opset)],
      producerName: "VisionCatalog ClassifierKit", producerVersion: "", domain: "",
      modelVersion: 1,
      graph: ONNXGraph(
        name: "efficientnet-lite", nodes: writer.nodes + outputs,
        initializers: writer.initializers,
        inputs: [ONNXValueInfo(name: Self.graphInput, type: image)],
        outputs: [
          ONNXValueInfo(name: Self.graphOutput, type: scores),
          ONNXValueInfo(name: Self.graphFeatures, type: pooled),
        ], valueInfo: []))
  }
}
