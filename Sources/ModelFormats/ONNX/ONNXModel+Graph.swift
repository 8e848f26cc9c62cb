package import NeuralCore

extension Graph {
  /// The network of a parsed ONNX model, as the engine runs it.
  ///
  /// - Parameter model: The parsed model.
  /// - Throws: ``ModelFormatsError`` with code `unsupported` for an initializer whose element type
  ///   has no numbers (strings).
  package init(_ model: ONNXModel) throws(ModelFormatsError) {
    var constants: [String: Constant] = [:]
    var elementTypes: [String: ElementType] = [:]
    for initializer in model.graph.initializers {
      elementTypes[initializer.name] = initializer.dataType
      guard let constant = Constant(initializer) else {
        throw ModelFormatsError(
          .unsupported, "initializer '\(initializer.name)' has element type \(initializer.dataType)"
        )
      }
      constants[initializer.name] = constant
    }
    var opsets: [String: Int] = [:]
    // The first import of a domain counts, as ONNX Runtime reads them.
    for opset in model.opsetImports.reversed() {
      opsets[opset.domain == "ai.onnx" ? "" : opset.domain] = Int(clamping: opset.version)
    }
    for info in model.graph.inputs + model.graph.outputs {
      if case .tensor(let type, _)? = info.type, elementTypes[info.name] == nil {
        elementTypes[info.name] = type
      }
    }
    self.init(
      nodes: model.graph.nodes.map(Node.init), constants: constants,
      inputs: model.graph.inputs.map(TensorDescription.init),
      outputs: model.graph.outputs.map(TensorDescription.init), opsetImports: opsets,
      elementTypes: elementTypes)
  }
}

extension Graph.Node {
  /// The node of an ONNX node.
  init(_ node: ONNXNode) {
    self.init(
      name: node.name, domain: node.domain, operatorName: node.opType, inputs: node.inputs,
      outputs: node.outputs,
      attributes: node.attributes.map { Graph.Attribute(name: $0.name, value: .init($0.value)) })
  }
}

extension Graph.Attribute.Value {
  /// The value of an ONNX attribute; subgraphs and tensors without numbers are described only.
  init(_ value: ONNXAttributeValue) {
    switch value {
    case .float(let number): self = .float(number)
    case .int(let integer): self = .int(integer)
    case .string(let text): self = .string(text)
    case .floats(let numbers): self = .floats(numbers)
    case .ints(let integers): self = .ints(integers)
    case .strings(let texts): self = .strings(texts)
    case .tensor(let tensor):
      if let constant = Graph.Constant(tensor) {
        self = .tensor(constant)
      } else {
        self = .unsupported("a tensor of element type \(tensor.dataType)")
      }
    case .graph: self = .unsupported("a graph")
    case .tensors: self = .unsupported("a list of tensors")
    case .graphs: self = .unsupported("a list of graphs")
    case .unread(let type): self = .unsupported("an attribute of type \(type)")
    }
  }
}

extension Graph.Constant {
  /// Converts an ONNX tensor, or returns `nil` for element types that have no numeric value.
  init?(_ tensor: ONNXTensor) {
    switch tensor.value {
    case .float(let value):
      self = .float(value)
    case .double(let values, let shape):
      guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
        return nil
      }
      self = .float(value)
    case .integer(let values, let shape):
      self = .integer(values, shape: shape)
    case .bool(let values, let shape):
      self = .integer(values.map { $0 ? 1 : 0 }, shape: shape)
    case .string:
      return nil
    }
  }
}

extension TensorDescription {
  /// The description of an ONNX value: its name, and its shape when it is a tensor of known
  /// rank (symbolic and unknown dimensions are open).
  init(_ info: ONNXValueInfo) {
    guard case .tensor(_, let dimensions)? = info.type, let dimensions else {
      self.init(name: info.name, shape: nil)
      return
    }
    self.init(
      name: info.name,
      shape: dimensions.map { dimension in
        if case .value(let size) = dimension, size >= 0 { return size }
        return nil
      })
  }
}

extension ONNXNode {
  /// The ONNX form of an engine graph node.
  package init(_ node: Graph.Node) throws(ModelFormatsError) {
    var attributes: [ONNXAttribute] = []
    for attribute in node.attributes {
      attributes.append(ONNXAttribute(name: attribute.name, value: try .init(attribute.value)))
    }
    self.init(
      name: node.name, opType: node.operatorName, domain: node.domain, inputs: node.inputs,
      outputs: node.outputs, attributes: attributes)
  }
}

extension ONNXAttributeValue {
  /// The ONNX form of an engine graph attribute value.
  package init(_ value: Graph.Attribute.Value) throws(ModelFormatsError) {
    switch value {
    case .int(let integer): self = .int(integer)
    case .ints(let integers): self = .ints(integers)
    case .float(let number): self = .float(number)
    case .floats(let numbers): self = .floats(numbers)
    case .string(let text): self = .string(text)
    case .strings(let texts): self = .strings(texts)
    case .tensor(let constant): self = .tensor(ONNXTensor(name: "", constant))
    case .unsupported(let description):
      throw ModelFormatsError(.unsupported, "no ONNX form for an attribute of \(description)")
    }
  }
}

extension ONNXTensor {
  /// The ONNX form of an engine graph constant.
  package init(name: String, _ constant: Graph.Constant) {
    switch constant {
    case .float(let tensor):
      self.init(name: name, dataType: .float, value: .float(tensor))
    case .integer(let values, let shape):
      self.init(name: name, dataType: .int64, value: .integer(values, shape: shape))
    }
  }
}
