extension Graph {
  /// Collects nodes and constants one at a time, naming each value it makes, so that layers
  /// can describe a network as a graph.
  ///
  /// Every node has one output, named after its operator and a running number (`conv_3`);
  /// constants keep the name they are given or are numbered (`constant_4`). The builder keeps
  /// constants in the order they were added, so a writer can store them in that order.
  package struct Builder: Sendable {
    /// The operator set version of the standard domain the layers write (Clip takes its bounds
    /// as inputs from 11 on).
    package static let operatorSetVersion = 13

    /// The nodes, in the order they were appended.
    package private(set) var nodes: [Node] = []
    /// The constants, in the order they were appended.
    package private(set) var constants: [(name: String, value: Constant)] = []
    private var constantNames: Set<String> = []
    private var counter = 0

    /// Creates an empty builder.
    package init() {}

    /// Appends a node of the standard domain with one output and returns the output's name.
    ///
    /// - Parameters:
    ///   - operatorName: The operator's name, such as `Conv`.
    ///   - inputs: The names of the values the node reads.
    ///   - attributes: The node's attributes.
    /// - Returns: The name of the node's output, which is also the node's name.
    package mutating func appendNode(
      _ operatorName: String, inputs: [String], attributes: [Attribute] = []
    ) -> String {
      counter += 1
      let output = "\(operatorName.lowercased())_\(counter)"
      nodes.append(
        Node(
          name: output, operatorName: operatorName, inputs: inputs, outputs: [output],
          attributes: attributes))
      return output
    }

    /// Appends a float constant and returns its name.
    ///
    /// - Parameters:
    ///   - tensor: The constant's value.
    ///   - name: The constant's name, such as a parameter's `_fc.weight`; `nil` numbers it.
    /// - Returns: The constant's name.
    /// - Throws: ``NeuralCoreError`` with code `invalidArgument` when the name is already used.
    package mutating func appendConstant(
      _ tensor: Tensor, named name: String? = nil
    ) throws(NeuralCoreError) -> String {
      counter += 1
      let name = name ?? "constant_\(counter)"
      guard constantNames.insert(name).inserted else {
        throw NeuralCoreError(.invalidArgument, "two constants are named '\(name)'")
      }
      constants.append((name, .float(tensor)))
      return name
    }

    /// The graph of the nodes and constants appended so far.
    ///
    /// - Parameters:
    ///   - inputs: The graph's inputs in order.
    ///   - outputs: The graph's outputs in order.
    /// - Returns: A graph of the standard domain at ``operatorSetVersion``.
    package func graph(inputs: [TensorDescription], outputs: [TensorDescription]) -> Graph {
      Graph(
        nodes: nodes,
        constants: Dictionary(uniqueKeysWithValues: constants.map { ($0.name, $0.value) }),
        inputs: inputs, outputs: outputs, opsetImports: ["": Self.operatorSetVersion])
    }
  }
}
