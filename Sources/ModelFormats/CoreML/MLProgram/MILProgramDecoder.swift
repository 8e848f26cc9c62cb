import NeuralCore

/// Decodes MIL.proto messages into ``MILProgram`` values.
///
/// Nesting is bounded by the protobuf reader's depth limit (every nested block, value and type is
/// a nested message), ranks by ``ImportLimits/maximumRank``, and every list by the bytes that
/// hold it, so hostile input costs time and memory in proportion to its size.
struct MILProgramDecoder {
  /// The limits checked.
  let limits: ImportLimits

  /// Decodes a `Program` message.
  ///
  /// - Parameter message: The message.
  /// - Returns: The program.
  /// - Throws: `malformedFile` for inconsistent fields (a function whose opset has no block),
  ///   `limitExceeded` past a limit, `unsupported` for an unknown data type.
  func program(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILProgram {
    var functions: [String: MILFunction] = [:]
    for entry in try message.messages(2) {
      let name = entry.string(1)
      guard let body = try entry.message(2) else {
        throw malformed("function '\(name)' has no body")
      }
      guard functions[name] == nil else { throw malformed("function '\(name)' occurs twice") }
      functions[name] = try function(body, name: name)
    }
    guard !functions.isEmpty else { throw malformed("the program has no functions") }
    return MILProgram(
      version: message.integer(1), functions: functions, docString: message.string(3),
      attributes: try attributes(message, field: 4))
  }

  private func function(_ message: CoreMLMessage, name: String) throws(ModelFormatsError)
    -> MILFunction
  {
    let opset = message.string(2)
    var blocks: [String: MILBlock] = [:]
    for entry in try message.messages(3) {
      guard let body = try entry.message(2) else {
        throw malformed("function '\(name)' has an empty block for '\(entry.string(1))'")
      }
      blocks[entry.string(1)] = try block(body)
    }
    guard blocks[opset] != nil else {
      throw malformed("function '\(name)' has no block for its opset '\(opset)'")
    }
    return MILFunction(
      inputs: try namedTypes(message.messages(1)), opset: opset, blockSpecializations: blocks,
      attributes: try attributes(message, field: 4))
  }

  private func block(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILBlock {
    var operations: [MILOperation] = []
    for operation in try message.messages(3) { operations.append(try self.operation(operation)) }
    return MILBlock(
      inputs: try namedTypes(message.messages(1)), outputs: message.strings(2),
      operations: operations, attributes: try attributes(message, field: 4))
  }

  private func operation(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILOperation {
    let type = message.string(1)
    var inputs: [String: MILArgument] = [:]
    for entry in try message.messages(2) {
      var bindings: [MILArgument.Binding] = []
      for binding in try entry.message(2)?.messages(1) ?? [] {
        if let value = try binding.message(2) {
          bindings.append(.value(try self.value(value)))
        } else if binding.has(1) {
          bindings.append(.name(binding.string(1)))
        } else {
          throw malformed("argument '\(entry.string(1))' of a '\(type)' has an empty binding")
        }
      }
      inputs[entry.string(1)] = MILArgument(bindings)
    }
    var blocks: [MILBlock] = []
    for nested in try message.messages(4) { blocks.append(try block(nested)) }
    return MILOperation(
      type: type, inputs: inputs, outputs: try namedTypes(message.messages(3)), blocks: blocks,
      attributes: try attributes(message, field: 5))
  }

  private func namedTypes(_ messages: [CoreMLMessage]) throws(ModelFormatsError)
    -> [MILNamedValueType]
  {
    var result: [MILNamedValueType] = []
    for message in messages {
      result.append(
        MILNamedValueType(name: message.string(1), type: try message.message(2).map(valueType)))
    }
    return result
  }

  /// A `map<string, Value>` field.
  private func attributes(_ message: CoreMLMessage, field: Int) throws(ModelFormatsError)
    -> [String: MILValue]
  {
    var result: [String: MILValue] = [:]
    for entry in try message.messages(field) {
      guard let value = try entry.message(2) else { continue }
      result[entry.string(1)] = try self.value(value)
    }
    return result
  }

  /// Decodes a `ValueType` message.
  func valueType(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILValueType {
    switch message.oneOf([1, 2, 3, 4, 5]) {
    case 1:
      guard let tensor = try message.message(1) else { break }
      return .tensor(try tensorType(tensor))
    case 2:
      guard let list = try message.message(2), let element = try list.message(1) else { break }
      return .list(element: try valueType(element), length: try list.message(2).map(dimension))
    case 3:
      guard let tuple = try message.message(3) else { break }
      var types: [MILValueType] = []
      for type in try tuple.messages(1) { types.append(try valueType(type)) }
      return .tuple(types)
    case 4:
      guard let dictionary = try message.message(4), let key = try dictionary.message(1),
        let value = try dictionary.message(2)
      else { break }
      return .dictionary(key: try valueType(key), value: try valueType(value))
    case 5:
      guard let state = try message.message(5), let wrapped = try state.message(1) else { break }
      return .state(try valueType(wrapped))
    default:
      break
    }
    throw malformed("a value type is empty")
  }

  private func tensorType(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILTensorType {
    let dataType = try self.dataType(message.integer(1))
    let rank = message.integer(2)
    let dimensions = try message.messages(3)
    guard dimensions.count <= limits.maximumRank else {
      throw ModelFormatsError(
        .limitExceeded,
        "MIL tensor type has \(dimensions.count) dimensions, above the limit \(limits.maximumRank)")
    }
    guard rank == -1 || rank == Int64(dimensions.count) else {
      throw malformed("a tensor type of rank \(rank) lists \(dimensions.count) dimensions")
    }
    var decoded: [MILDimension] = []
    for dimension in dimensions { decoded.append(try self.dimension(dimension)) }
    return MILTensorType(dataType: dataType, rank: Int(rank), dimensions: decoded)
  }

  private func dimension(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILDimension {
    if let constant = try message.message(1) {
      let size = UInt64(bitPattern: constant.integer(1))
      guard size <= UInt64(limits.maximumElementCount) else {
        throw ModelFormatsError(
          .limitExceeded,
          "MIL dimension \(size) is above the element limit \(limits.maximumElementCount)")
      }
      return .constant(Int(size))
    }
    if let unknown = try message.message(2) { return .unknown(variadic: unknown.integer(1) != 0) }
    throw malformed("a dimension is neither constant nor unknown")
  }

  private func dataType(_ raw: Int64) throws(ModelFormatsError) -> MILDataType {
    guard let type = Int(exactly: raw).flatMap(MILDataType.init(rawValue:)) else {
      throw ModelFormatsError(.unsupported, "MIL data type \(raw) is not known to this reader")
    }
    return type
  }

  /// Decodes a `Value` message.
  func value(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILValue {
    let type = try message.message(2).map(valueType)
    if let blob = try message.message(5) {
      let fileName = blob.string(1)
      guard !fileName.isEmpty else { throw malformed("a blob file value names no file") }
      return MILValue(
        type: type,
        storage: .blobFile(fileName: fileName, offset: UInt64(bitPattern: blob.integer(2))))
    }
    if let immediate = try message.message(3) {
      return MILValue(type: type, storage: .immediate(try immediateValue(immediate)))
    }
    return MILValue(type: type, storage: .none)
  }

  private func immediateValue(_ message: CoreMLMessage) throws(ModelFormatsError)
    -> MILImmediateValue
  {
    let kind = message.oneOf([1, 2, 3, 4])
    switch kind {
    case 1:
      guard let tensor = try message.message(1) else { break }
      return .tensor(try tensorValue(tensor))
    case 2, 3:
      guard let kind, let container = try message.message(kind) else { break }
      var values: [MILValue] = []
      for value in try container.messages(1) { values.append(try self.value(value)) }
      return kind == 2 ? .tuple(values) : .list(values)
    case 4:
      guard let dictionary = try message.message(4) else { break }
      var entries: [MILDictionaryEntry] = []
      for pair in try dictionary.messages(1) {
        entries.append(
          MILDictionaryEntry(
            key: try pair.message(1).map(value), value: try pair.message(2).map(value)))
      }
      return .dictionary(entries)
    default:
      break
    }
    throw malformed("an immediate value is empty")
  }

  private func tensorValue(_ message: CoreMLMessage) throws(ModelFormatsError) -> MILTensorValue {
    guard let kind = message.oneOf([1, 2, 3, 4, 5, 6, 7]), let values = try message.message(kind)
    else {
      // proto3 leaves an empty repeated field out: an empty tensor has no case at all.
      return .floats([])
    }
    switch kind {
    case 1: return .floats(try values.floats(1))
    case 2: return .ints(try values.integers(1).map { Int32(truncatingIfNeeded: $0) })
    case 3: return .bools(try values.integers(1).map { $0 != 0 })
    case 4: return .strings(values.strings(1))
    case 5: return .longInts(try values.integers(1))
    case 6: return .doubles(try values.doubles(1))
    default: return .bytes(Array(values.bytes(1)))
    }
  }

  private func malformed(_ message: String) -> ModelFormatsError {
    ModelFormatsError(.malformedFile, "MIL program: \(message)")
  }
}
