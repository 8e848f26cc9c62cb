/// A network as the engine runs it: nodes of named operators, constant tensors, and the
/// values the caller provides and receives.
///
/// Importers (the `ModelFormats` module reads ONNX and Core ML files) produce this value;
/// ``InferenceSession`` checks, sorts and optimizes it. Operators are named as the ONNX operator
/// sets name them, in the domain the node gives, and run at the version ``opsetImports`` gives
/// for that domain.
package struct Graph: Sendable, Hashable {
  /// The nodes, in any order; a session sorts them so that every value is made before it is
  /// used.
  package var nodes: [Node]
  /// Values known before the network runs (weights and other initializers), by name.
  package var constants: [String: Constant]
  /// The graph's inputs in order; an input that also names a constant is that constant.
  package var inputs: [TensorDescription]
  /// The graph's outputs in order.
  package var outputs: [TensorDescription]
  /// The version of each operator set domain the graph uses, by domain (`""` for the standard
  /// ONNX domain).
  package var opsetImports: [String: Int]
  /// The element types the model declares for its integer constants, inputs and outputs.
  ///
  /// They decide, for example, whether `QuantizeLinear` writes int8 or uint8. A value without
  /// an entry is float (a float constant or tensor) or int64 (an
  /// integer constant).
  package var elementTypes: [String: ElementType]

  /// Creates a graph.
  ///
  /// - Parameters:
  ///   - nodes: The nodes, in any order.
  ///   - constants: Values known before the network runs, by name.
  ///   - inputs: The graph's inputs in order.
  ///   - outputs: The graph's outputs in order.
  ///   - opsetImports: The version of each operator set domain, by domain; `ai.onnx` and `""`
  ///     both name the standard domain.
  ///   - elementTypes: The declared element types of integer constants, inputs and outputs.
  package init(
    nodes: [Node], constants: [String: Constant], inputs: [TensorDescription],
    outputs: [TensorDescription], opsetImports: [String: Int],
    elementTypes: [String: ElementType] = [:]
  ) {
    self.nodes = nodes
    self.elementTypes = elementTypes
    self.constants = constants
    self.inputs = inputs
    self.outputs = outputs
    self.opsetImports = [:]
    for (domain, version) in opsetImports {
      self.opsetImports[OperatorRegistry.canonicalDomain(domain)] = version
    }
  }

  /// The version of an operator set domain the graph uses, or `nil` when it uses none.
  ///
  /// - Parameter domain: The domain; `ai.onnx` and `""` both name the standard domain.
  /// - Returns: The version.
  package func opsetVersion(forDomain domain: String) -> Int? {
    opsetImports[OperatorRegistry.canonicalDomain(domain)]
  }
}

extension Graph {
  /// One operator applied to named values.
  package struct Node: Sendable, Hashable {
    /// The node's name, used in messages and step timings; may be empty.
    package var name: String
    /// The operator set domain (`""` for the standard ONNX domain).
    package var domain: String
    /// The operator's name, such as `Conv`.
    package var operatorName: String
    /// The names of the values the node reads; an empty name is an omitted optional input.
    package var inputs: [String]
    /// The names of the values the node makes.
    package var outputs: [String]
    /// The node's attributes in order.
    package var attributes: [Attribute]

    /// Creates a node.
    ///
    /// - Parameters:
    ///   - name: The node's name; may be empty.
    ///   - domain: The operator set domain (`""` for the standard ONNX domain).
    ///   - operatorName: The operator's name.
    ///   - inputs: The names of the values the node reads.
    ///   - outputs: The names of the values the node makes.
    ///   - attributes: The node's attributes.
    package init(
      name: String, domain: String = "", operatorName: String, inputs: [String],
      outputs: [String], attributes: [Attribute] = []
    ) {
      self.name = name
      self.domain = domain
      self.operatorName = operatorName
      self.inputs = inputs
      self.outputs = outputs
      self.attributes = attributes
    }

    /// The value of the attribute `name`, or `nil` when the node has none.
    ///
    /// - Parameter name: The attribute's name.
    /// - Returns: The first attribute of that name's value.
    package func attribute(named name: String) -> Attribute.Value? {
      attributes.first { $0.name == name }?.value
    }
  }

  /// A named attribute of a node.
  package struct Attribute: Sendable, Hashable {
    /// The attribute's name.
    package var name: String
    /// The attribute's value.
    package var value: Value

    /// Creates an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - value: The attribute's value.
    package init(name: String, value: Value) {
      self.name = name
      self.value = value
    }

    /// An attribute's value.
    package enum Value: Sendable, Hashable {
      /// One integer.
      case int(Int64)
      /// A list of integers.
      case ints([Int64])
      /// One float.
      case float(Float)
      /// A list of floats.
      case floats([Float])
      /// A string.
      case string(String)
      /// A list of strings.
      case strings([String])
      /// A constant tensor.
      case tensor(Constant)
      /// A value the engine does not read (a subgraph, or a tensor without numbers), described
      /// in words for messages.
      case unsupported(String)
    }
  }

  /// A value known before the network runs: an initializer, a `Constant`, or a folded result.
  ///
  /// Integer values are kept apart from float tensors because shape arithmetic (Shape, Gather,
  /// Slice, Concat feeding Reshape) needs them exact; booleans are integers 0 and 1.
  package enum Constant: Sendable, Hashable {
    /// Float values (any float element type is held as `Float`).
    case float(Tensor)
    /// Integer values with their shape.
    case integer([Int64], shape: [Int])

    /// The value's shape.
    package var shape: [Int] {
      switch self {
      case .float(let tensor): tensor.shape
      case .integer(_, let shape): shape
      }
    }
  }
}
