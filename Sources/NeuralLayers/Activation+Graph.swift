import NeuralCore

extension Activation {
  /// Appends the nodes that apply the activation to a value and returns the result's name
  /// (the input itself for ``identity``).
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: The name of the value to activate.
  /// - Returns: The name of the activated value.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a constant's name is taken.
  func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    switch self {
    case .identity:
      return input
    case .relu:
      return builder.appendNode("Relu", inputs: [input])
    case .clip(let low, let high):
      let lower = try builder.appendConstant(try Tensor(shape: [], scalars: [low]))
      let upper = try builder.appendConstant(try Tensor(shape: [], scalars: [high]))
      return builder.appendNode("Clip", inputs: [input, lower, upper])
    case .sigmoid:
      return builder.appendNode("Sigmoid", inputs: [input])
    case .hardSigmoid(let alpha, let beta):
      return builder.appendNode(
        "HardSigmoid", inputs: [input],
        attributes: [
          Graph.Attribute(name: "alpha", value: .float(alpha)),
          Graph.Attribute(name: "beta", value: .float(beta)),
        ])
    case .hardSwish:
      return builder.appendNode("HardSwish", inputs: [input])
    case .silu:
      let gate = builder.appendNode("Sigmoid", inputs: [input])
      return builder.appendNode("Mul", inputs: [input, gate])
    }
  }
}
