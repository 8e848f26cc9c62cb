/// An ONNX graph: nodes in file order, initializers, and declared inputs and outputs.
package struct ONNXGraph: Sendable, Hashable {
  /// The graph's name.
  package var name: String
  /// The nodes in file order (ONNX requires topological order, this library does not check).
  package var nodes: [ONNXNode]
  /// The constant tensors (weights), in file order.
  package var initializers: [ONNXTensor]
  /// The declared inputs; may include initializers in IR version 3 and older.
  package var inputs: [ONNXValueInfo]
  /// The declared outputs.
  package var outputs: [ONNXValueInfo]
  /// Type annotations of intermediate values.
  package var valueInfo: [ONNXValueInfo]

  /// Creates a graph.
  ///
  /// - Parameters:
  ///   - name: The graph's name.
  ///   - nodes: The nodes.
  ///   - initializers: The constant tensors.
  ///   - inputs: The declared inputs.
  ///   - outputs: The declared outputs.
  ///   - valueInfo: Type annotations of intermediate values.
  package init(
    name: String, nodes: [ONNXNode], initializers: [ONNXTensor], inputs: [ONNXValueInfo],
    outputs: [ONNXValueInfo], valueInfo: [ONNXValueInfo]
  ) {
    self.name = name
    self.nodes = nodes
    self.initializers = initializers
    self.inputs = inputs
    self.outputs = outputs
    self.valueInfo = valueInfo
  }

  /// The initializer with the given name.
  ///
  /// - Parameter name: The tensor's name.
  /// - Returns: The tensor, or `nil` when no initializer has that name.
  package func initializer(named name: String) -> ONNXTensor? {
    initializers.first { $0.name == name }
  }

  /// The inputs that are fed at run time: declared inputs that are not initializers.
  package var runtimeInputs: [ONNXValueInfo] {
    let constants = Set(initializers.map(\.name))
    return inputs.filter { !constants.contains($0.name) }
  }
}
