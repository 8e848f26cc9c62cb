package import ModelFormats
package import NeuralCore
import NeuralLayers

extension EfficientNetLite {
  /// The name of the image input of ``graph(loading:)``: `[batch, 3, height, width]`.
  package static let graphInput = "input"
  /// The name of the logits output of ``graph(loading:)``: `[batch, classCount]`.
  package static let graphOutput = "logits"
  /// The name of the features output of ``graph(loading:)``: `[batch, headChannels]`, the
  /// pooled head the classifier reads (1280 values in every Lite variant), for training a new
  /// classifier on them.
  package static let graphFeatures = "features"

  /// The network as an ONNX graph with a checkpoint's parameters, each batch normalization
  /// folded into the convolution before it, for NeuralCore's `InferenceSession`.
  ///
  /// The graph holds the nodes the loaded layers append, as ``forward(_:threadCount:)`` runs
  /// them, with the features as a second output. Convolutions pad with `auto_pad`
  /// `SAME_UPPER`, which is TensorFlow's `SAME`.
  ///
  /// - Parameter stateDictionary: The checkpoint's tensors by name, as for ``loading(_:)``.
  /// - Returns: A model with input ``graphInput`` and outputs ``graphOutput`` and
  ///   ``graphFeatures``.
  /// - Throws: `ModelFormatsError` with the `NeuralCoreError` of ``loading(_:)`` as its
  ///   underlying error: `missingValue` naming a missing parameter, `malformedFile` for a
  ///   parameter of the wrong shape or a batch normalization whose scale is not finite.
  package func graph(loading stateDictionary: [String: Tensor]) throws(ModelFormatsError)
    -> ONNXModel
  {
    let (builder, logits, features) = try ModelFormatsError.converting(
      as: .malformedFile, try nodes(loading: stateDictionary))
    let outputs = [(logits, Self.graphOutput), (features, Self.graphFeatures)].map {
      ONNXNode(
        name: $0.1, opType: "Identity", domain: "", inputs: [$0.0], outputs: [$0.1],
        attributes: [])
    }
    return ONNXModel(
      irVersion: 8,
      opsetImports: [
        ONNXOperatorSetID(domain: "", version: Int64(Graph.Builder.operatorSetVersion))
      ],
      producerName: "VisionCatalog ClassifierKit", producerVersion: "", domain: "",
      modelVersion: 1,
      graph: ONNXGraph(
        name: "efficientnet-lite", nodes: try builder.nodes.map(ONNXNode.init) + outputs,
        initializers: builder.constants.map { ONNXTensor(name: $0.name, $0.value) },
        inputs: [ONNXValueInfo(name: Self.graphInput, type: imageType)],
        outputs: [
          ONNXValueInfo(name: Self.graphOutput, type: Self.rows(classCount)),
          ONNXValueInfo(name: Self.graphFeatures, type: Self.rows(headChannels)),
        ], valueInfo: []))
  }

  /// The nodes and constants of the loaded network, with the names of its two outputs.
  private func nodes(loading stateDictionary: [String: Tensor]) throws(NeuralCoreError) -> (
    builder: Graph.Builder, logits: String, features: String
  ) {
    let layers = try loading(stateDictionary).network.layers
    var builder = Graph.Builder()
    // Everything up to the classifier, then the classifier: its input is the features output.
    let features = try Sequential(Array(layers.dropLast()))
      .appendLayerNodes(to: &builder, input: Self.graphInput)
    let logits = try layers.last?.appendLayerNodes(to: &builder, input: features) ?? features
    return (builder, logits, features)
  }

  /// `[batch, 3, height, width]` floats.
  private var imageType: ONNXValueType {
    .tensor(
      elementType: .float,
      shape: [.symbolic("batch"), .value(3), .symbolic("height"), .symbolic("width")])
  }

  /// `[batch, columns]` floats.
  private static func rows(_ columns: Int) -> ONNXValueType {
    .tensor(elementType: .float, shape: [.symbolic("batch"), .value(columns)])
  }
}
