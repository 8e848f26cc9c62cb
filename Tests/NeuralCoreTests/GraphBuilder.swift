import ModelFormats
import NeuralCore

/// Builds small ONNX models in memory for executor tests.
struct GraphBuilder {
  var nodes: [ONNXNode] = []
  var initializers: [ONNXTensor] = []
  var opset: Int64 = 13

  mutating func constant(_ name: String, _ tensor: Tensor) {
    initializers.append(ONNXTensor(name: name, dataType: .float, value: .float(tensor)))
  }

  mutating func integers(_ name: String, _ values: [Int64], shape: [Int]? = nil) {
    initializers.append(
      ONNXTensor(
        name: name, dataType: .int64, value: .integer(values, shape: shape ?? [values.count])))
  }

  mutating func node(
    _ opType: String, _ inputs: [String], _ outputs: [String],
    _ attributes: [String: ONNXAttributeValue] = [:]
  ) {
    nodes.append(
      ONNXNode(
        name: "\(opType)_\(nodes.count)", opType: opType, domain: "", inputs: inputs,
        outputs: outputs,
        attributes: attributes.sorted { $0.key < $1.key }.map {
          ONNXAttribute(name: $0.key, value: $0.value)
        }))
  }

  func model(inputs: [(String, [Int?])], outputs: [String]) -> ONNXModel {
    let inputInfos = inputs.map { name, shape in
      ONNXValueInfo(
        name: name,
        type: .tensor(
          elementType: .float,
          shape: shape.map { $0.map { ONNXDimension.value($0) } ?? .symbolic("N") }))
    }
    return ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: opset)],
      producerName: "tests", producerVersion: "1", domain: "", modelVersion: 1,
      graph: ONNXGraph(
        name: "test", nodes: nodes, initializers: initializers, inputs: inputInfos,
        outputs: outputs.map { ONNXValueInfo(name: $0, type: nil) }, valueInfo: []))
  }
}
