public import NeuralCore

extension EfficientNetLite {
  /// The name of the image input of ``graph(loading:)``: `[batch, 3, height, width]`.
  public static let graphInput = "input"
  /// The name of the logits output of ``graph(loading:)``: `[batch, classCount]`.
  public static let graphOutput = "logits"

  /// The network as an ONNX graph with a checkpoint's parameters, each batch normalization
  /// folded into the convolution before it, for NeuralCore's `InferenceSession`.
  ///
  /// A session plans the graph once (fused bias and ReLU6, the blocked channel layout, one memory
  /// plan) and so runs it faster than ``forward(_:threadCount:)``, which calls the layers one by
  /// one; both compute the same logits. Convolutions pad with `auto_pad` `SAME_UPPER`, which is
  /// TensorFlow's `SAME`.
  ///
  /// - Parameter stateDictionary: The checkpoint's tensors by name, as for ``loading(_:)``.
  /// - Returns: A model with input ``graphInput`` and output ``graphOutput``.
  /// - Throws: `NeuralCoreError` as ``loading(_:)`` does.
  public func graph(loading stateDictionary: [String: Tensor]) throws(NeuralCoreError)
    -> ONNXModel
  {
    var writer = LayerGraphWriter(parameters: stateDictionary)
    let logits = try writer.write(network, input: Self.graphInput)
    let output = ONNXNode(
      name: Self.graphOutput, opType: "Identity", domain: "", inputs: [logits],
      outputs: [Self.graphOutput], attributes: [])
    let image = ONNXValueType.tensor(
      elementType: .float,
      shape: [.symbolic("batch"), .value(3), .symbolic("height"), .symbolic("width")])
    let scores = ONNXValueType.tensor(
      elementType: .float, shape: [.symbolic("batch"), .value(classCount)])
    return ONNXModel(
      irVersion: 8,
      opsetImports: [ONNXOperatorSetID(domain: "", version: LayerGraphWriter.opset)],
      producerName: "VisionCatalog ClassifierKit", producerVersion: "", domain: "",
      modelVersion: 1,
      graph: ONNXGraph(
        name: "efficientnet-lite", nodes: writer.nodes + [output],
        initializers: writer.initializers,
        inputs: [ONNXValueInfo(name: Self.graphInput, type: image)],
        outputs: [ONNXValueInfo(name: Self.graphOutput, type: scores)], valueInfo: []))
  }
}
