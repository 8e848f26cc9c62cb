/// Element-wise activations and math functions of one tensor, and the softmax family.
enum ActivationOperators {
  /// The family's registry entries.
  static let entries: [OperatorEntry] =
    [
      OperatorEntry("Relu") { builder, node throws(NeuralCoreError) in
        try builder.planActivation(node, .relu)
      }
      .blocked { builder, node, layout throws(NeuralCoreError) in
        try builder.planBlockedRelu(node, layout)
      }
      .fusing { _, _ in .relu }
      .perElement(),
      OperatorEntry("Sigmoid") { builder, node throws(NeuralCoreError) in
        try builder.planActivation(node, .sigmoid)
      }
      .fusing { _, _ in .sigmoid }
      .gating { _ in .silu }
      .perElement(),
      // ONNX defines HardSwish from opset 14; NeuralCore's own writers (Core ML lowering,
      // EfficientNet-Lite graphs) emit it in opset 13 models, so older opsets are accepted.
      OperatorEntry("HardSwish", opsets: .since(7)) { builder, node throws(NeuralCoreError) in
        try builder.planActivation(node, .hardSwish)
      }
      .fusing { _, _ in .hardSwish }
      .perElement(),
      OperatorEntry("HardSigmoid", attributes: ["alpha", "beta"]) {
        builder, node throws(NeuralCoreError) in
        try builder.planActivation(node, try hardSigmoid(node.attributes))
      }
      .fusing { _, node throws(NeuralCoreError) in try hardSigmoid(node.attributes) }
      .gating { node throws(NeuralCoreError) in
        // PyTorch exports hard-swish this way before opset 14.
        try hardSigmoid(node.attributes) == .hardSigmoid(alpha: 1 / 6, beta: 0.5)
          ? .hardSwish : nil
      }
      .perElement(),
      OperatorEntry("Clip", attributes: ["min", "max"]) { builder, node throws(NeuralCoreError) in
        try builder.planClip(node)
      }
      .fusing { graph, node throws(NeuralCoreError) in try ImportedGraph.clipActivation(graph, node)
      }
      .perElement(),
      OperatorEntry("Softmax", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
        try builder.planSoftmax(node, .softmax)
      },
      OperatorEntry("LogSoftmax", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
        try builder.planSoftmax(node, .logSoftmax)
      },
      OperatorEntry("Hardmax", attributes: ["axis"]) { builder, node throws(NeuralCoreError) in
        try builder.planSoftmax(node, .hardmax)
      },
    ] + functions

  /// The ``UnaryFunction`` operators: name, first opset and attributes.
  private static let functions: [OperatorEntry] = [
    unary("Abs"), unary("Neg"), unary("Exp"), unary("Log"), unary("Sqrt"),
    unary("Reciprocal"), unary("Tanh"), unary("Floor"), unary("Ceil"), unary("Softplus"),
    unary("Softsign"),
    unary("Erf", since: 9).rewriting { graph, index, uses throws(NeuralCoreError) in
      try graph.fuseGELU(at: index, uses: uses)
    }, unary("Sign", since: 9), unary("Round", since: 11),
    unary("Sin", since: 7), unary("Cos", since: 7), unary("Tan", since: 7),
    unary("Asin", since: 7), unary("Acos", since: 7), unary("Atan", since: 7),
    unary("Sinh", since: 9), unary("Cosh", since: 9), unary("Asinh", since: 9),
    unary("Acosh", since: 9), unary("Atanh", since: 9), unary("Mish", since: 18),
    unary("LeakyRelu", attributes: ["alpha"]), unary("Elu", attributes: ["alpha"]),
    unary("Celu", since: 12, attributes: ["alpha"]),
    unary("ThresholdedRelu", since: 10, attributes: ["alpha"]),
    unary("Selu", attributes: ["alpha", "gamma"]),
    unary("Gelu", since: 20, attributes: ["approximate"]),
    unary("Shrink", since: 9, attributes: ["bias", "lambd"]),
  ]

  /// `HardSigmoid`'s activation: `max(0, min(1, alpha * x + beta))`.
  private static func hardSigmoid(_ attributes: NodeAttributes) throws(NeuralCoreError)
    -> Activation
  {
    .hardSigmoid(
      alpha: try attributes.float("alpha", default: 0.2),
      beta: try attributes.float("beta", default: 0.5))
  }

  /// The entry of a ``UnaryFunction`` operator, planned with the function of its name.
  private static func unary(
    _ name: String, since first: Int = 1, attributes: Set<String> = []
  ) -> OperatorEntry {
    OperatorEntry(name, opsets: .since(first), attributes: attributes) {
      builder, node throws(NeuralCoreError) in
      guard let function = try UnaryFunction.named(name, attributes: node.attributes) else {
        throw node.attributes.error(.unsupported, "operator has no element-wise function")
      }
      try builder.planUnary(node, function)
    }.perElement()
  }
}
