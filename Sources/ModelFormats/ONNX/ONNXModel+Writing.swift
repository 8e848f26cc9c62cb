import NeuralCore

extension ONNXModel {
  /// The model as an ONNX `ModelProto`, which ONNX Runtime, `onnx.checker` and this library's
  /// reader load.
  ///
  /// Tensors are written as little-endian `raw_data` (strings as `string_data`), so reading the
  /// bytes back gives an equal model. Sequence, map and optional values are written as their
  /// kind alone: the reader keeps no more of them.
  ///
  /// - Returns: The serialized model.
  /// - Throws: `unsupported` for parts this writer cannot express: tensors of sub-byte, 8-bit
  ///   float or bfloat16 types, and attributes the reader kept unread; `limitExceeded` for a
  ///   model past protobuf's 2 GB (external data is not written).
  public func serializedBytes() throws(ModelFormatsError) -> [UInt8] {
    var writer = ProtobufWriter()
    writer.int(1, irVersion)
    if !producerName.isEmpty { writer.string(2, producerName) }
    if !producerVersion.isEmpty { writer.string(3, producerVersion) }
    if !domain.isEmpty { writer.string(4, domain) }
    if modelVersion != 0 { writer.int(5, modelVersion) }
    try writer.checkedMessage(7) { (graphWriter) throws(ModelFormatsError) in
      try ONNXEncoding.graph(graph, into: &graphWriter)
    }
    for opset in opsetImports { ONNXEncoding.opset(8, opset, into: &writer) }
    for function in functions {
      try writer.checkedMessage(25) { (out) throws(ModelFormatsError) in
        try ONNXEncoding.function(function, into: &out)
      }
    }
    guard writer.bytes.count <= Int(Int32.max) else {
      throw ModelFormatsError(
        .limitExceeded,
        "the model takes \(writer.bytes.count) bytes, past protobuf's 2 GB limit; this writer "
          + "keeps every tensor in the one message")
    }
    return writer.bytes
  }
}

extension ProtobufWriter {
  /// A nested message field whose writer can fail.
  mutating func checkedMessage(
    _ field: Int, _ build: (inout ProtobufWriter) throws(ModelFormatsError) -> Void
  ) throws(ModelFormatsError) {
    var nested = ProtobufWriter()
    try build(&nested)
    bytes(field, nested.bytes)
  }
}

/// The ONNX messages' field numbers and encodings (onnx.proto), one function per message.
enum ONNXEncoding {
  static func graph(_ graph: ONNXGraph, into writer: inout ProtobufWriter)
    throws(ModelFormatsError)
  {
    for node in graph.nodes {
      try writer.checkedMessage(1) { (out) throws(ModelFormatsError) in
        try Self.node(node, into: &out)
      }
    }
    if !graph.name.isEmpty { writer.string(2, graph.name) }
    for tensor in graph.initializers {
      try writer.checkedMessage(5) { (out) throws(ModelFormatsError) in
        try Self.tensor(tensor, into: &out)
      }
    }
    for (field, values) in [(11, graph.inputs), (12, graph.outputs), (13, graph.valueInfo)] {
      for info in values { writer.message(field) { Self.valueInfo(info, into: &$0) } }
    }
  }

  static func node(_ node: ONNXNode, into writer: inout ProtobufWriter) throws(ModelFormatsError) {
    for input in node.inputs { writer.string(1, input) }
    for output in node.outputs { writer.string(2, output) }
    if !node.name.isEmpty { writer.string(3, node.name) }
    writer.string(4, node.opType)
    for attribute in node.attributes {
      try writer.checkedMessage(5) { (out) throws(ModelFormatsError) in
        try Self.attribute(attribute, into: &out)
      }
    }
    if !node.domain.isEmpty { writer.string(7, node.domain) }
  }

  static func attribute(_ attribute: ONNXAttribute, into writer: inout ProtobufWriter)
    throws(ModelFormatsError)
  {
    writer.string(1, attribute.name)
    let type: Int64
    switch attribute.value {
    case .float(let value):
      writer.float(2, value)
      type = 1
    case .int(let value):
      writer.int(3, value)
      type = 2
    case .string(let value):
      writer.string(4, value)
      type = 3
    case .tensor(let value):
      try writer.checkedMessage(5) { (out) throws(ModelFormatsError) in
        try Self.tensor(value, into: &out)
      }
      type = 4
    case .graph(let value):
      try writer.checkedMessage(6) { (out) throws(ModelFormatsError) in
        try Self.graph(value, into: &out)
      }
      type = 5
    case .floats(let values):
      writer.packedFloats(7, values)
      type = 6
    case .ints(let values):
      writer.packedInts(8, values)
      type = 7
    case .strings(let values):
      for value in values { writer.string(9, value) }
      type = 8
    case .tensors(let values):
      for value in values {
        try writer.checkedMessage(10) { (out) throws(ModelFormatsError) in
          try Self.tensor(value, into: &out)
        }
      }
      type = 9
    case .graphs(let values):
      for value in values {
        try writer.checkedMessage(11) { (out) throws(ModelFormatsError) in
          try Self.graph(value, into: &out)
        }
      }
      type = 10
    case .unread(let attributeType):
      throw ModelFormatsError(
        .unsupported,
        "attribute '\(attribute.name)' of type \(attributeType) was not read, so it cannot be written"
      )
    }
    writer.int(20, type)
  }

  static func tensor(_ tensor: ONNXTensor, into writer: inout ProtobufWriter)
    throws(ModelFormatsError)
  {
    writer.packedInts(1, tensor.shape.map(Int64.init))
    writer.int(2, Int64(tensor.dataType.rawValue))
    writer.string(8, tensor.name)
    if case .string(let values, _) = tensor.value {
      for value in values { writer.string(6, value) }
      return
    }
    writer.bytes(9, try rawData(tensor))
  }

  /// A tensor's values as ONNX `raw_data`: little-endian, in the width of its data type.
  private static func rawData(_ tensor: ONNXTensor) throws(ModelFormatsError) -> [UInt8] {
    func littleEndian(_ bits: [UInt64], width: Int) -> [UInt8] {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(bits.count * width)
      for value in bits {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
      }
      return bytes
    }
    let type = tensor.dataType
    switch tensor.value {
    case .float(let values) where type == .float:
      return littleEndian(values.scalars.map { UInt64($0.bitPattern) }, width: 4)
    case .float(let values) where type == .float16:
      return littleEndian(values.scalars.map { UInt64(Float16($0).bitPattern) }, width: 2)
    case .double(let values, _) where type == .double:
      return littleEndian(values.map(\.bitPattern), width: 8)
    case .integer(let values, _):
      let widths: [ONNXDataType: Int] = [
        .int8: 1, .uint8: 1, .int16: 2, .uint16: 2, .int32: 4, .uint32: 4, .int64: 8, .uint64: 8,
      ]
      if let width = widths[type] {
        return littleEndian(values.map { UInt64(bitPattern: $0) }, width: width)
      }
    case .bool(let values, _) where type == .bool:
      return values.map { $0 ? 1 : 0 }
    default: break
    }
    throw ModelFormatsError(
      .unsupported, "tensor '\(tensor.name)' of type \(type) cannot be written")
  }

  /// The `TypeProto` field of each non-tensor kind the reader keeps by name.
  private static let otherTypeFields = ["sequence": 4, "map": 5, "sparse_tensor": 8, "optional": 9]

  static func valueInfo(_ info: ONNXValueInfo, into writer: inout ProtobufWriter) {
    writer.string(1, info.name)
    if case .other(let kind) = info.type, let field = otherTypeFields[kind] {
      writer.message(2) { $0.message(field) { _ in } }
    }
    guard case .tensor(let elementType, let shape) = info.type else { return }
    writer.message(2) { type in
      type.message(1) { tensorType in
        tensorType.int(1, Int64(elementType.rawValue))
        guard let shape else { return }
        tensorType.message(2) { shapeWriter in
          for dimension in shape {
            shapeWriter.message(1) { dim in
              switch dimension {
              case .value(let size): dim.int(1, Int64(size))
              case .symbolic(let name): dim.string(2, name)
              case .unknown: break
              }
            }
          }
        }
      }
    }
  }

  static func opset(_ field: Int, _ opset: ONNXOperatorSetID, into writer: inout ProtobufWriter) {
    writer.message(field) { out in
      if !opset.domain.isEmpty { out.string(1, opset.domain) }
      out.int(2, opset.version)
    }
  }

  static func function(_ function: ONNXFunction, into writer: inout ProtobufWriter)
    throws(ModelFormatsError)
  {
    writer.string(1, function.name)
    for input in function.inputs { writer.string(4, input) }
    for output in function.outputs { writer.string(5, output) }
    for name in function.attributeNames { writer.string(6, name) }
    for node in function.nodes {
      try writer.checkedMessage(7) { (out) throws(ModelFormatsError) in
        try Self.node(node, into: &out)
      }
    }
    for opset in function.opsetImports { Self.opset(9, opset, into: &writer) }
    if !function.domain.isEmpty { writer.string(10, function.domain) }
    for attribute in function.defaultAttributes {
      try writer.checkedMessage(11) { (out) throws(ModelFormatsError) in
        try Self.attribute(attribute, into: &out)
      }
    }
  }
}
