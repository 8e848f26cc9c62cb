import Foundation
import ModelFormats
import NeuralCore
import Testing

/// `ONNXModel.quantized(ranges:keepingFloat:channelMeans:)` on a small hand-built classifier: the QDQ
/// structure ONNX Runtime writes, per-channel int8 weights, int32 biases, a ReLU folded into
/// its convolution's range, layers kept in float, and the refusals.
struct QDQRewriteTests {
  /// `x [1, 2, 4, 4]` -> Conv (3 filters, bias) -> Relu -> GlobalAveragePool -> Flatten ->
  /// Gemm (`transB = 1`, 5 classes, bias) -> `logits`.
  static func classifier(opset: Int64 = 13) throws -> ONNXModel {
    func tensor(_ name: String, _ shape: [Int], _ values: [Float]) throws -> ONNXTensor {
      ONNXTensor(
        name: name, dataType: .float, value: .float(try Tensor(shape: shape, scalars: values)))
    }
    func node(
      _ op: String, _ inputs: [String], _ output: String, _ attributes: [ONNXAttribute] = []
    )
      -> ONNXNode
    {
      ONNXNode(
        name: output + "_node", opType: op, domain: "", inputs: inputs, outputs: [output],
        attributes: attributes)
    }
    let gemmWeights = (0..<15).map { Float($0 % 7) / 7 - 0.4 }
    return ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: opset)],
      producerName: "test", producerVersion: "", domain: "", modelVersion: 1,
      graph: ONNXGraph(
        name: "small",
        nodes: [
          node("Conv", ["x", "w", "b"], "conv"),
          node("Relu", ["conv"], "relu"),
          node("GlobalAveragePool", ["relu"], "pool"),
          node("Flatten", ["pool"], "flat", [ONNXAttribute(name: "axis", value: .int(1))]),
          node(
            "Gemm", ["flat", "gw", "gb"], "logits",
            [ONNXAttribute(name: "transB", value: .int(1))]),
        ],
        initializers: [
          try tensor("w", [3, 2, 1, 1], [0.5, -1, 0.25, 0.125, -2, 1]),
          try tensor("b", [3], [0.1, -0.2, 0.3]),
          try tensor("gw", [5, 3], gemmWeights),
          try tensor("gb", [5], [0, 0.1, 0.2, 0.3, 0.4]),
        ],
        inputs: [
          ONNXValueInfo(
            name: "x",
            type: .tensor(elementType: .float, shape: [.value(1), .value(2), .value(4), .value(4)]))
        ],
        outputs: [
          ONNXValueInfo(
            name: "logits", type: .tensor(elementType: .float, shape: [.value(1), .value(5)]))
        ], valueInfo: []))
  }

  static let ranges: [String: ClosedRange<Float>] = [
    "x": -1...3, "relu": 0...2, "pool": 0...1, "flat": 0...1,
  ]

  @Test func plansTheLayersAndActivations() throws {
    let model = try Self.classifier()
    #expect(model.quantizableLayers == ["conv_node", "logits_node"])
    #expect(model.calibrationTensors == ["x", "relu", "pool", "flat"])
    #expect(model.inputNames == ["x"])
    #expect(model.outputNames == ["logits"])
    let extended = model.addingOutputs(["relu", "x", "logits", "pool"])
    #expect(extended.outputNames == ["logits", "relu", "pool"])
  }

  @Test func writesTheQDQFormOfEveryLayer() throws {
    let quantized = try Self.classifier().quantized(ranges: Self.ranges)
    let nodes = quantized.graph.nodes
    #expect(
      nodes.map(\.opType) == [
        "DequantizeLinear", "DequantizeLinear", "DequantizeLinear", "DequantizeLinear",
        "QuantizeLinear", "DequantizeLinear", "Conv", "QuantizeLinear", "DequantizeLinear",
        "GlobalAveragePool", "QuantizeLinear", "DequantizeLinear", "Flatten", "QuantizeLinear",
        "DequantizeLinear", "Gemm",
      ])
    // The ReLU is folded: the convolution writes its output, whose range starts at 0.
    let conv = try #require(nodes.first { $0.opType == "Conv" })
    #expect(conv.outputs == ["relu"])
    #expect(
      conv.inputs == [
        "x_DequantizeLinear_Output", "w_DequantizeLinear_Output", "b_DequantizeLinear_Output",
      ])
    let gemm = try #require(nodes.first { $0.opType == "Gemm" })
    #expect(
      gemm.inputs == [
        "flat_DequantizeLinear_Output", "gw_DequantizeLinear_Output", "gb_DequantizeLinear_Output",
      ])
    // The logits stay float: nothing quantized reads them.
    #expect(gemm.outputs == ["logits"])

    let initializers = Dictionary(
      quantized.graph.initializers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    // Float weights no node reads any more are gone.
    for name in ["w", "b", "gw", "gb"] { #expect(initializers[name] == nil) }

    let weights = ChannelQuantizedWeights(
      try Tensor(shape: [3, 2, 1, 1], scalars: [0.5, -1, 0.25, 0.125, -2, 1]), axis: 0)
    let w = try #require(initializers["w_quantized"])
    #expect(w.dataType == .int8)
    #expect(w.value == .integer(weights.values.map(Int64.init), shape: [3, 2, 1, 1]))
    #expect(try initializers["w_scale"]?.floatTensor().scalars == weights.scales)
    #expect(initializers["w_zero_point"]?.value == .integer([0, 0, 0], shape: [3]))
    #expect(initializers["w_zero_point"]?.dataType == .int8)

    let input = AffineQuantization(uint8Range: -1...3)
    #expect(try initializers["x_scale"]?.floatTensor().scalars == [input.scale])
    #expect(initializers["x_zero_point"]?.value == .integer([64], shape: []))
    #expect(initializers["x_zero_point"]?.dataType == .uint8)
    #expect(initializers["relu_zero_point"]?.value == .integer([0], shape: []))

    let bias = weights.quantizedBias([0.1, -0.2, 0.3], inputScale: input.scale)
    let b = try #require(initializers["b_quantized"])
    #expect(b.dataType == .int32)
    #expect(b.value == .integer(bias.values.map(Int64.init), shape: [3]))
    #expect(try initializers["b_quantized_scale"]?.floatTensor().scalars == bias.scales)
    #expect(initializers["b_quantized_zero_point"]?.dataType == .int32)

    // Per-channel axes: 0 for the Conv weight and for Gemm's `transB = 1` weight `[N, K]`.
    let axes = nodes.filter {
      $0.opType == "DequantizeLinear" && $0.inputs[0].hasSuffix("_quantized")
    }
    .map { $0.attribute(named: "axis")?.intValue }
    #expect(axes == [0, 0, 0, 0])

    // The file reads back to the same model.
    #expect(try ONNXModel(serializedBytes: quantized.serializedBytes()) == quantized)
  }

  @Test func aMatMulWeightIsQuantizedPerColumn() throws {
    var model = try Self.classifier()
    model.graph.nodes[4] = ONNXNode(
      name: "logits_node", opType: "MatMul", domain: "", inputs: ["flat", "mw"],
      outputs: ["logits"], attributes: [])
    model.graph.initializers.append(
      ONNXTensor(
        name: "mw", dataType: .float,
        value: .float(try Tensor(shape: [3, 5], scalars: (0..<15).map { Float($0) - 7 }))))
    let quantized = try model.quantized(ranges: Self.ranges)
    let dequantize = try #require(
      quantized.graph.nodes.first { $0.outputs == ["mw_DequantizeLinear_Output"] })
    #expect(dequantize.attribute(named: "axis")?.intValue == 1)
    let scales = try #require(quantized.graph.initializer(named: "mw_scale"))
    #expect(scales.shape == [5])
  }

  @Test func layersKeptInFloatKeepTheirWeightsAndActivation() throws {
    let model = try Self.classifier()
    let quantized = try model.quantized(ranges: Self.ranges, keepingFloat: ["conv_node"])
    let nodes = quantized.graph.nodes
    let conv = try #require(nodes.first { $0.opType == "Conv" })
    #expect(conv.inputs == ["x", "w", "b"])
    #expect(nodes.contains { $0.opType == "Relu" })
    #expect(!nodes.contains { $0.inputs.first == "x" && $0.opType == "QuantizeLinear" })
    #expect(quantized.graph.initializer(named: "w") != nil)
    // The pooling still reads a quantized ReLU output.
    let pool = try #require(nodes.first { $0.opType == "GlobalAveragePool" })
    #expect(pool.inputs == ["relu_DequantizeLinear_Output"])

    let last = try model.quantized(ranges: Self.ranges, keepingFloat: ["logits_node"])
    let gemm = try #require(last.graph.nodes.first { $0.opType == "Gemm" })
    #expect(gemm.inputs == ["flat", "gw", "gb"])
  }

  @Test func refusesWhatCannotBeQuantized() throws {
    let model = try Self.classifier()
    expectModelFormatsError(.invalidArgument) {
      _ = try model.quantized(ranges: Self.ranges, keepingFloat: ["conv_node", "logits_node"])
    }
    expectModelFormatsError(.missingValue) {
      _ = try model.quantized(ranges: ["x": -1...1])
    }
    expectModelFormatsError(.invalidArgument) {
      _ = try Self.classifier(opset: 11).quantized(ranges: Self.ranges)
    }
    var noLayers = model
    noLayers.graph.nodes = [
      ONNXNode(
        name: "r", opType: "Relu", domain: "", inputs: ["x"], outputs: ["logits"], attributes: [])
    ]
    #expect(noLayers.quantizableLayers.isEmpty)
    expectModelFormatsError(.invalidArgument) { _ = try noLayers.quantized(ranges: Self.ranges) }
  }
}
