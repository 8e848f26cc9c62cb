import NeuralCore

/// Decodes ONNX protobuf messages (onnx.proto, IR version 3 to 11) into the ONNX value types.
///
/// Field numbers follow onnx.proto; unknown fields are skipped as protobuf requires, so newer
/// files still parse. Every message read goes through ``ProtobufReader``'s bounds checks.
struct ONNXProtoDecoder {
  let limits: ImportLimits
  /// Where tensors with external data are read from; `nil` when the model came as bytes.
  var externalData: ONNXExternalData? = nil

  /// Decodes a `ModelProto`.
  func model(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXModel {
    var irVersion: Int64 = 0
    var opsets: [ONNXOperatorSetID] = []
    var producerName = ""
    var producerVersion = ""
    var domain = ""
    var modelVersion: Int64 = 0
    var graph: ONNXGraph?
    var functions: [ONNXFunction] = []
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: irVersion = try reader.readInt64(wireType)
      case 2: producerName = try string(&reader, wireType)
      case 3: producerVersion = try string(&reader, wireType)
      case 4: domain = try string(&reader, wireType)
      case 5: modelVersion = try reader.readInt64(wireType)
      case 7:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        graph = try self.graph(&nested)
      case 8:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        opsets.append(try operatorSet(&nested))
      case 25:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        functions.append(try function(&nested))
      default: try reader.skip(wireType)
      }
    }
    guard let graph else {
      throw ModelFormatsError(.malformedFile, "ONNX model has no graph")
    }
    return ONNXModel(
      irVersion: irVersion, opsetImports: opsets, producerName: producerName,
      producerVersion: producerVersion, domain: domain, modelVersion: modelVersion, graph: graph,
      functions: functions)
  }

  private func function(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXFunction {
    var result = ONNXFunction(
      name: "", domain: "", inputs: [], outputs: [], attributeNames: [], defaultAttributes: [],
      nodes: [], opsetImports: [])
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: result.name = try string(&reader, wireType)
      case 4: result.inputs.append(try string(&reader, wireType))
      case 5: result.outputs.append(try string(&reader, wireType))
      case 6: result.attributeNames.append(try string(&reader, wireType))
      case 7, 9, 11:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        switch number {
        case 7: result.nodes.append(try node(&nested))
        case 9: result.opsetImports.append(try operatorSet(&nested))
        default: result.defaultAttributes.append(try attribute(&nested))
        }
      case 10: result.domain = try string(&reader, wireType)
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func operatorSet(_ reader: inout ProtobufReader) throws(ModelFormatsError)
    -> ONNXOperatorSetID
  {
    var result = ONNXOperatorSetID(domain: "", version: 0)
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: result.domain = try string(&reader, wireType)
      case 2: result.version = try reader.readInt64(wireType)
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  /// Decodes a `GraphProto`.
  func graph(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXGraph {
    var result = ONNXGraph(
      name: "", nodes: [], initializers: [], inputs: [], outputs: [], valueInfo: [])
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        result.nodes.append(try node(&nested))
      case 2: result.name = try string(&reader, wireType)
      case 5:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        result.initializers.append(try tensor(&nested))
      case 11, 12, 13:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        let info = try valueInfo(&nested)
        switch number {
        case 11: result.inputs.append(info)
        case 12: result.outputs.append(info)
        default: result.valueInfo.append(info)
        }
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func node(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXNode {
    var result = ONNXNode(name: "", opType: "", domain: "", inputs: [], outputs: [], attributes: [])
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: result.inputs.append(try string(&reader, wireType))
      case 2: result.outputs.append(try string(&reader, wireType))
      case 3: result.name = try string(&reader, wireType)
      case 4: result.opType = try string(&reader, wireType)
      case 5:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        result.attributes.append(try attribute(&nested))
      case 7: result.domain = try string(&reader, wireType)
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func attribute(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXAttribute
  {
    var name = ""
    var declaredType: Int64 = 0
    var float: Float?
    var int: Int64?
    var text: String?
    var tensor: ONNXTensor?
    var graph: ONNXGraph?
    var floats: [UInt32] = []
    var ints: [UInt64] = []
    var strings: [String] = []
    var tensors: [ONNXTensor] = []
    var graphs: [ONNXGraph] = []
    var unreadType: Int?
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: name = try string(&reader, wireType)
      case 2: float = try reader.readFloat(wireType)
      case 3: int = try reader.readInt64(wireType)
      case 4: text = try string(&reader, wireType)
      case 5:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        tensor = try self.tensor(&nested)
      case 6:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        graph = try self.graph(&nested)
      case 7: try reader.appendFixed32s(wireType, to: &floats)
      case 8: try reader.appendVarints(wireType, to: &ints)
      case 9: strings.append(try string(&reader, wireType))
      case 10:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        tensors.append(try self.tensor(&nested))
      case 11:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        graphs.append(try self.graph(&nested))
      case 20: declaredType = try reader.readInt64(wireType)
      case 22, 23, 14, 15:
        unreadType = [22: 11, 23: 12, 14: 13, 15: 14][number]
        try reader.skip(wireType)
      default: try reader.skip(wireType)
      }
    }
    let value: ONNXAttributeValue?
    switch declaredType {
    // onnx.proto is proto2 but writers may still omit a zero scalar; read it as zero.
    case 1: value = .float(float ?? 0)
    case 2: value = .int(int ?? 0)
    case 3: value = .string(text ?? "")
    case 4: value = tensor.map { .tensor($0) }
    case 5: value = graph.map { .graph($0) }
    case 6: value = .floats(floats.map { Float(bitPattern: $0) })
    case 7: value = .ints(ints.map { Int64(bitPattern: $0) })
    case 8: value = .strings(strings)
    case 9: value = .tensors(tensors)
    case 10: value = .graphs(graphs)
    case 11...14: value = .unread(attributeType: Int(declaredType))
    case 0:
      // IR version 1 files may omit the type; infer it from the one field that is set.
      if let float {
        value = .float(float)
      } else if let int {
        value = .int(int)
      } else if let text {
        value = .string(text)
      } else if let tensor {
        value = .tensor(tensor)
      } else if let graph {
        value = .graph(graph)
      } else if !floats.isEmpty {
        value = .floats(floats.map { Float(bitPattern: $0) })
      } else if !ints.isEmpty {
        value = .ints(ints.map { Int64(bitPattern: $0) })
      } else if !strings.isEmpty {
        value = .strings(strings)
      } else if !tensors.isEmpty {
        value = .tensors(tensors)
      } else if !graphs.isEmpty {
        value = .graphs(graphs)
      } else {
        value = unreadType.map { .unread(attributeType: $0) }
      }
    default:
      value = .unread(attributeType: Int(declaredType))
    }
    guard let value else {
      throw ModelFormatsError(
        .malformedFile, "attribute '\(name)' of type \(declaredType) has no value")
    }
    return ONNXAttribute(name: name, value: value)
  }

  private func valueInfo(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXValueInfo
  {
    var result = ONNXValueInfo(name: "", type: nil)
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1: result.name = try string(&reader, wireType)
      case 2:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        result.type = try valueType(&nested)
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func valueType(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXValueType?
  {
    var result: ONNXValueType?
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        result = try tensorType(&nested)
      case 4:
        result = .other("sequence")
        try reader.skip(wireType)
      case 5:
        result = .other("map")
        try reader.skip(wireType)
      case 8:
        result = .other("sparse_tensor")
        try reader.skip(wireType)
      case 9:
        result = .other("optional")
        try reader.skip(wireType)
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func tensorType(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXValueType
  {
    var elementType = ONNXDataType.undefined
    var shape: [ONNXDimension]?
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1:
        elementType = ONNXDataType(
          rawValue: Int32(truncatingIfNeeded: try reader.readInt64(wireType)))
      case 2:
        try reader.expectLengthDelimited(wireType)
        var nested = try reader.readMessage()
        var dimensions: [ONNXDimension] = []
        while let (dimNumber, dimWireType) = try nested.nextField() {
          guard dimNumber == 1 else {
            try nested.skip(dimWireType)
            continue
          }
          try nested.expectLengthDelimited(dimWireType)
          var dimReader = try nested.readMessage()
          dimensions.append(try dimension(&dimReader))
          guard dimensions.count <= limits.maximumRank else {
            throw ModelFormatsError(
              .limitExceeded, "a declared shape has more than \(limits.maximumRank) dimensions")
          }
        }
        shape = dimensions
      default: try reader.skip(wireType)
      }
    }
    return .tensor(elementType: elementType, shape: shape)
  }

  private func dimension(_ reader: inout ProtobufReader) throws(ModelFormatsError) -> ONNXDimension
  {
    var result = ONNXDimension.unknown
    while let (number, wireType) = try reader.nextField() {
      switch number {
      case 1:
        let value = try reader.readInt64(wireType)
        guard value >= 0 else {
          throw ModelFormatsError(.malformedFile, "a declared dimension is negative (\(value))")
        }
        result = .value(Int(value))
      case 2: result = .symbolic(try string(&reader, wireType))
      default: try reader.skip(wireType)
      }
    }
    return result
  }

  private func string(_ reader: inout ProtobufReader, _ wireType: ProtobufReader.WireType)
    throws(ModelFormatsError) -> String
  {
    try reader.expectLengthDelimited(wireType)
    return try reader.readString()
  }
}
