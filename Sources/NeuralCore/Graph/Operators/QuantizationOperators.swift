/// Linear quantization: ONNX's `QuantizeLinear`, `DequantizeLinear` and
/// `DynamicQuantizeLinear`, the integer convolutions and matrix products, and the
/// `com.microsoft` operators ONNX Runtime's quantizer writes in its QOperator format, and the
/// table lookup that element-wise regions of quantized models import as.
enum QuantizationOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] =
    [
      OperatorEntry(
        "QuantizeLinear", opsets: .since(10),
        attributes: ["axis", "saturate", "block_size", "output_dtype"]
      ) { builder, node throws(NeuralCoreError) in
        try builder.planQuantizeLinear(node)
      }
      .foldingConstantInputs(PlanBuilder.foldLinearQuantization)
      .channelsLast { builder, node throws(NeuralCoreError) in
        try builder.planQuantizeLinearChannelsLast(node)
      }
      .perElement(),
      OperatorEntry("DequantizeLinear", opsets: .since(10), attributes: ["axis", "block_size"]) {
        builder, node throws(NeuralCoreError) in
        try builder.planDequantizeLinear(node)
      }.foldingConstantInputs(PlanBuilder.foldLinearQuantization).readingIntegerTensors()
        .perElement(),
      OperatorEntry("DynamicQuantizeLinear", opsets: .since(11)) {
        builder, node throws(NeuralCoreError) in
        try builder.planDynamicQuantizeLinear(node)
      },
      OperatorEntry("ConvInteger", opsets: .since(10), attributes: convolutionAttributes) {
        builder, node throws(NeuralCoreError) in
        try builder.planConvInteger(node)
      }.readingIntegerTensors(),
      OperatorEntry("MatMulInteger", opsets: .since(10)) { builder, node throws(NeuralCoreError) in
        try builder.planMatMulInteger(node)
      }.readingIntegerTensors(),
      OperatorEntry("QLinearConv", opsets: .since(10), attributes: convolutionAttributes) {
        builder, node throws(NeuralCoreError) in
        try builder.planQLinearConv(node)
      }
      .readingIntegerTensors()
      .channelsLast { builder, node throws(NeuralCoreError) in
        try builder.planQLinearConvChannelsLast(node)
      },
      OperatorEntry("QLinearMatMul", opsets: .since(10)) { builder, node throws(NeuralCoreError) in
        try builder.planQLinearMatMul(node)
      }.readingIntegerTensors(),
      OperatorEntry(ImportedGraph.lookupOperator, domain: ImportedGraph.lookupDomain) {
        builder, node throws(NeuralCoreError) in
        try builder.planQuantizedLookup(node)
      }
      .readingIntegerTensors()
      .channelsLast { builder, node throws(NeuralCoreError) in
        try builder.planQuantizedLookupChannelsLast(node)
      },
    ] + microsoftEntries

  /// The attributes of `Conv`, which the integer convolutions share.
  static let convolutionAttributes: Set<String> = [
    "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
  ]

  /// The `com.microsoft` operators of ONNX Runtime's QOperator format, each its float operator
  /// between dequantized inputs and a quantized output.
  static let microsoftEntries: [OperatorEntry] = [
    binary("QLinearAdd", "Add").channelsLast { builder, node throws(NeuralCoreError) in
      try builder.planQLinearAddChannelsLast(node)
    },
    binary("QLinearMul", "Mul").channelsLast { builder, node throws(NeuralCoreError) in
      try builder.planQLinearMulChannelsLast(node)
    },
    unary("QLinearSigmoid", "Sigmoid"),
    unary("QLinearLeakyRelu", "LeakyRelu", attributes: ["alpha"]),
    unary("QLinearGlobalAveragePool", "GlobalAveragePool", attributes: ["channels_last"])
      .channelsLast { builder, node throws(NeuralCoreError) in
        try builder.planQLinearGlobalAveragePoolChannelsLast(node)
      },
    unary(
      "QLinearAveragePool", "AveragePool",
      attributes: [
        "auto_pad", "ceil_mode", "channels_last", "count_include_pad", "kernel_shape", "pads",
        "strides",
      ]),
    unary("QLinearSoftmax", "Softmax", attributes: ["axis", "opset"]),
    OperatorEntry("QLinearConcat", domain: "com.microsoft", attributes: ["axis"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planQLinearConcat(node)
    }.readingIntegerTensors(),
    OperatorEntry("QGemm", domain: "com.microsoft", attributes: ["alpha", "transA", "transB"]) {
      builder, node throws(NeuralCoreError) in
      try builder.planQGemm(node)
    }
    .readingIntegerTensors()
    .channelsLast { builder, node throws(NeuralCoreError) in try builder.planQGemmInteger(node) },
  ]

  /// A `com.microsoft` operator of two quantized inputs: `A, A_scale, A_zero_point, B,
  /// B_scale, B_zero_point, C_scale, C_zero_point`.
  static func binary(_ name: String, _ operatorName: String) -> OperatorEntry {
    OperatorEntry(name, domain: "com.microsoft") { builder, node throws(NeuralCoreError) in
      try builder.planDequantizedOperator(
        node, operatorName, operands: [(0, 1, 2), (3, 4, 5)], output: (6, 7))
    }.readingIntegerTensors()
  }

  /// A `com.microsoft` operator of one quantized input: `X, X_scale, X_zero_point, Y_scale,
  /// Y_zero_point`; its attributes other than `channels_last` (which must be 0) and `opset`
  /// (QLinearSoftmax's, the Softmax version it follows) are the float operator's.
  static func unary(
    _ name: String, _ operatorName: String, attributes: Set<String> = []
  ) -> OperatorEntry {
    OperatorEntry(name, domain: "com.microsoft", attributes: attributes) {
      builder, node throws(NeuralCoreError) in
      if try node.attributes.int("channels_last", default: 0) != 0 {
        throw node.attributes.error(.unsupported, "channels_last 1 is not supported")
      }
      let opset = try node.attributes.int("opset", default: 13)
      try builder.planDequantizedOperator(
        node, operatorName, opset: opset, operands: [(0, 1, 2)], output: (3, 4),
        attributes: node.source.attributes.filter {
          $0.name != "channels_last" && $0.name != "opset"
        })
    }.readingIntegerTensors()
  }
}
