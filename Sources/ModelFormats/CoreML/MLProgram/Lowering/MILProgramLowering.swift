import NeuralCore

/// Lowers the operations of an ML Program's function to ONNX nodes, so the ONNX importer's
/// checks, fusions and kernels run ML Programs too (no second execution path).
///
/// Constants (`const`, the `constexpr_*` decompressions, immediate arguments) are kept as values
/// while the block is read: parameters such as strides and padding are read from them, and a
/// constant a computation takes becomes one ONNX initializer. Float16 tensors and weights are
/// widened to Float32, so the engine computes in Float32 throughout. Each operation type is one
/// ``MILOperatorEntry`` in ``MILOperatorRegistry``; a type without one is refused by name.
struct MILProgramLowering {
  /// Reads a blob file a `blobFileValue` names (`@model_path/weights/weight.bin`).
  typealias BlobFileReader = (String) throws(ModelFormatsError) -> MILBlobFile

  let limits: ImportLimits
  private let readBlobFile: BlobFileReader
  private var blobFiles: [String: MILBlobFile] = [:]
  /// The ONNX nodes, in the program's order.
  var nodes: [ONNXNode] = []
  /// The constants computations take.
  var initializers: [ONNXTensor] = []
  /// The declared type of every tensor seen so far, by name.
  private(set) var types: [String: MILTensorType] = [:]
  /// The constants, by name.
  private(set) var constants: [String: MILConstant] = [:]
  /// The constants already added as initializers.
  private var materialized: Set<String> = []
  /// The class labels of a `classify` operation.
  var classLabels: [String]?
  /// The tensor a `classify` operation reads its scores from.
  var scoresName: String?
  /// The operation type that produced each tensor, for the output's description.
  private(set) var producers: [String: String] = [:]
  /// The input of each value-preserving operation (a float `cast`), by output.
  var aliases: [String: String] = [:]
  /// How many operations (and block outputs) read each value.
  private(set) var uses: [String: Int] = [:]

  init(limits: ImportLimits, readBlobFile: @escaping BlobFileReader) {
    self.limits = limits
    self.readBlobFile = readBlobFile
  }

  /// Lowers a function's block: its inputs are the graph's, its operations become nodes.
  mutating func lower(_ function: MILFunction, name: String) throws(ModelFormatsError) {
    guard let block = function.block else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: function '\(name)' has no block for opset \(function.opset)")
    }
    for input in function.inputs {
      switch input.type {
      case .tensor(let type)?: types[input.name] = type
      case .state?:
        throw ModelFormatsError(
          .unsupported,
          "ML Program: input '\(input.name)' is a state; stateful programs are not run")
      default:
        throw ModelFormatsError(
          .unsupported, "ML Program: input '\(input.name)' is not a tensor")
      }
    }
    for operation in block.operations {
      for argument in operation.inputs.values {
        for case .name(let name) in argument.bindings { uses[name, default: 0] += 1 }
      }
    }
    for output in block.outputs { uses[output, default: 0] += 1 }
    for operation in block.operations { try lower(operation) }
  }

  /// Lowers one operation through its registry entry.
  mutating func lower(_ operation: MILOperation) throws(ModelFormatsError) {
    guard let entry = MILOperatorRegistry.entries[operation.type] else {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: operation '\(operation.type)' (producing '\(Self.name(of: operation))') is "
          + "not supported")
    }
    guard operation.blocks.isEmpty else {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: operation '\(operation.type)' holds nested blocks (control flow), which are "
          + "not run")
    }
    if let unknown = operation.inputs.keys.sorted().first(where: { !entry.inputs.contains($0) }) {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: operation '\(operation.type)' (producing '\(Self.name(of: operation))') has "
          + "parameter '\(unknown)', which this importer does not know")
    }
    for output in operation.outputs {
      if case .tensor(let type)? = output.type { types[output.name] = type }
      producers[output.name] = operation.type
    }
    try entry.lower(&self, operation)
  }

  /// The operation that computes `name`, looking through value-preserving casts.
  func producer(of name: String) -> String? {
    var current = name
    for _ in 0..<8 {
      guard let source = aliases[current] else { break }
      current = source
    }
    return producers[current]
  }

  /// The name of an operation's first output, which names its nodes.
  static func name(of operation: MILOperation) -> String {
    operation.outputs.first?.name ?? operation.type
  }

  // MARK: - Reading parameters

  /// Whether the operation binds `parameter`, as an input or (as iOS 16's `constexpr_*`
  /// operations do) as an attribute.
  func has(_ operation: MILOperation, _ parameter: String) -> Bool {
    operation.inputs[parameter]?.bindings.isEmpty == false
      || operation.attributes[parameter] != nil
  }

  /// The one binding of a parameter: its input, else its attribute.
  private func binding(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> MILArgument.Binding
  {
    if operation.inputs[parameter] == nil, let value = operation.attributes[parameter] {
      return .value(value)
    }
    guard let bindings = operation.inputs[parameter]?.bindings, bindings.count == 1 else {
      throw ModelFormatsError(
        .malformedFile,
        "ML Program: '\(Self.name(of: operation))' (\(operation.type)) needs one value for "
          + "'\(parameter)'")
    }
    return bindings[0]
  }

  /// The constant a parameter binds, or `nil` when it is absent.
  mutating func constant(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> MILConstant?
  {
    guard has(operation, parameter) else { return nil }
    return try constant(of: binding(operation, parameter), operation, parameter)
  }

  /// The constant a parameter binds; absent or computed at run time is an error.
  mutating func requiredConstant(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> MILConstant
  {
    guard let value = try constant(operation, parameter) else {
      throw Self.missing(operation, parameter)
    }
    return value
  }

  private mutating func constant(
    of binding: MILArgument.Binding, _ operation: MILOperation, _ parameter: String
  ) throws(ModelFormatsError) -> MILConstant {
    switch binding {
    case .name(let name):
      guard let value = constants[name] else {
        throw ModelFormatsError(
          .unsupported,
          "ML Program: '\(Self.name(of: operation))' (\(operation.type)) takes '\(parameter)' "
            + "from '\(name)', computed while the model runs; only constants are supported there")
      }
      return value
    case .value(let value):
      return try decode(value, what: "'\(Self.name(of: operation))' \(parameter)")
    }
  }

  /// A parameter's constant read by `read`, or `defaultValue` when it is absent (an error when
  /// there is no default).
  private mutating func parameter<Value>(
    _ operation: MILOperation, _ parameter: String, default defaultValue: Value?,
    _ read: (MILConstant, String) throws(ModelFormatsError) -> Value
  ) throws(ModelFormatsError) -> Value {
    guard let value = try constant(operation, parameter) else {
      guard let defaultValue else { throw Self.missing(operation, parameter) }
      return defaultValue
    }
    return try read(value, "'\(Self.name(of: operation))' \(parameter)")
  }

  private static func missing(_ operation: MILOperation, _ parameter: String) -> ModelFormatsError {
    ModelFormatsError(
      .malformedFile,
      "ML Program: '\(name(of: operation))' (\(operation.type)) has no '\(parameter)'")
  }

  /// The one value of a parameter that must hold one.
  private static func single<Value>(_ values: [Value], _ what: String)
    throws(ModelFormatsError) -> Value
  {
    guard values.count == 1 else {
      throw ModelFormatsError(
        .malformedFile, "ML Program: \(what) has \(values.count) values, not 1")
    }
    return values[0]
  }

  /// Integer parameters, or `defaultValue` when absent.
  mutating func integers(
    _ operation: MILOperation, _ parameter: String, default defaultValue: [Int]?
  ) throws(ModelFormatsError) -> [Int] {
    try self.parameter(operation, parameter, default: defaultValue) {
      value, what throws(ModelFormatsError) in
      var result: [Int] = []
      for element in try value.integers(what) {
        guard abs(element) <= 1 << 40 else {
          throw ModelFormatsError(.malformedFile, "ML Program: \(what) holds \(element)")
        }
        result.append(Int(element))
      }
      return result
    }
  }

  /// One integer parameter, or `defaultValue` when absent.
  mutating func integer(_ operation: MILOperation, _ parameter: String, default defaultValue: Int?)
    throws(ModelFormatsError) -> Int
  {
    try Self.single(
      integers(operation, parameter, default: defaultValue.map { [$0] }),
      "'\(Self.name(of: operation))' \(parameter)")
  }

  /// One float parameter, or `defaultValue` when absent.
  mutating func float(_ operation: MILOperation, _ parameter: String, default defaultValue: Float?)
    throws(ModelFormatsError) -> Float
  {
    try self.parameter(operation, parameter, default: defaultValue) {
      value, what throws(ModelFormatsError) in try Self.single(value.floats(what), what)
    }
  }

  /// One boolean parameter, or `defaultValue` when absent.
  mutating func bool(_ operation: MILOperation, _ parameter: String, default defaultValue: Bool)
    throws(ModelFormatsError) -> Bool
  {
    try integer(operation, parameter, default: defaultValue ? 1 : 0) != 0
  }

  /// One string parameter, or `defaultValue` when absent.
  mutating func string(
    _ operation: MILOperation, _ parameter: String, default defaultValue: String?
  ) throws(ModelFormatsError) -> String {
    try self.parameter(operation, parameter, default: defaultValue) {
      value, what throws(ModelFormatsError) in
      guard case .strings(let strings) = value.values, strings.count == 1 else {
        throw ModelFormatsError(.malformedFile, "ML Program: \(what) is not one string")
      }
      return strings[0]
    }
  }

  // MARK: - Tensors

  /// The graph tensor a parameter binds: a computed tensor's name, or a constant added as an
  /// initializer (once).
  mutating func tensor(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> String
  {
    try tensor(of: binding(operation, parameter), operation, parameter)
  }

  /// The graph tensors of a parameter that binds several (`concat`'s `values`).
  mutating func tensors(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> [String]
  {
    guard let bindings = operation.inputs[parameter]?.bindings, !bindings.isEmpty else {
      throw Self.missing(operation, parameter)
    }
    var names: [String] = []
    for binding in bindings { names.append(try tensor(of: binding, operation, parameter)) }
    return names
  }

  private mutating func tensor(
    of binding: MILArgument.Binding, _ operation: MILOperation, _ parameter: String
  ) throws(ModelFormatsError) -> String {
    switch binding {
    case .name(let name):
      if constants[name] != nil { return try materialize(name) }
      guard types[name] != nil else {
        throw ModelFormatsError(
          .malformedFile,
          "ML Program: '\(Self.name(of: operation))' (\(operation.type)) reads '\(name)', which "
            + "no earlier operation or input produces")
      }
      return name
    case .value(let value):
      let name = Self.name(of: operation) + "__" + parameter
      constants[name] = try decode(value, what: "'\(Self.name(of: operation))' \(parameter)")
      return try materialize(name)
    }
  }

  /// Adds a constant as an initializer unless it already is one; returns its name.
  mutating func materialize(_ name: String) throws(ModelFormatsError) -> String {
    guard let value = constants[name] else {
      throw ModelFormatsError(.malformedFile, "ML Program: '\(name)' is not a constant")
    }
    if materialized.insert(name).inserted {
      initializers.append(try value.tensor(named: name))
    }
    return name
  }

  /// Records a constant an operation produces.
  mutating func define(_ name: String, _ value: MILConstant) throws(ModelFormatsError) {
    _ = try limits.checkedElementCount(of: value.shape, name: name)
    guard Tensor.elementCount(of: value.shape) == value.count else {
      throw ModelFormatsError(
        .malformedFile,
        "ML Program: constant '\(name)' has \(value.count) values for shape \(value.shape)")
    }
    constants[name] = value
  }

  /// The rank a tensor is declared with, or `nil` when unknown.
  func rank(of name: String) -> Int? {
    if let constant = constants[name] { return constant.shape.count }
    guard let type = types[name], type.rank >= 0 else { return nil }
    return type.rank
  }

  /// A dimension of a tensor, when the program declares it.
  func dimension(of name: String, axis: Int) -> Int? {
    if let constant = constants[name] {
      return constant.shape.indices.contains(axis) ? constant.shape[axis] : nil
    }
    guard let type = types[name], type.dimensions.indices.contains(axis),
      case .constant(let size) = type.dimensions[axis]
    else { return nil }
    return size
  }

  /// The rank of a parameter's tensor, which the lowering needs.
  mutating func requiredRank(_ operation: MILOperation, _ parameter: String)
    throws(ModelFormatsError) -> Int
  {
    let name = try tensor(operation, parameter)
    guard let rank = rank(of: name) else {
      throw ModelFormatsError(
        .unsupported,
        "ML Program: '\(Self.name(of: operation))' (\(operation.type)) needs the rank of "
          + "'\(name)', which the program does not declare")
    }
    return rank
  }

  // MARK: - Emitting nodes

  /// Appends an ONNX node.
  mutating func emit(
    _ type: String, _ name: String, _ inputs: [String], _ outputs: [String],
    _ attributes: [ONNXAttribute] = []
  ) {
    nodes.append(
      ONNXNode(
        name: name, opType: type, domain: "", inputs: inputs, outputs: outputs,
        attributes: attributes))
  }

  /// Appends an ONNX node computing the operation's one output from `inputs`.
  mutating func emit(
    _ type: String, _ operation: MILOperation, _ inputs: [String],
    _ attributes: [ONNXAttribute] = []
  ) throws(ModelFormatsError) {
    emit(type, Self.name(of: operation), inputs, [try output(operation)], attributes)
  }

  /// The operation's one output name.
  func output(_ operation: MILOperation) throws(ModelFormatsError) -> String {
    guard operation.outputs.count == 1 else {
      throw ModelFormatsError(
        .malformedFile,
        "ML Program: '\(Self.name(of: operation))' (\(operation.type)) has "
          + "\(operation.outputs.count) outputs, not 1")
    }
    return operation.outputs[0].name
  }

  /// A float constant added as an initializer; returns its name.
  mutating func floatConstant(_ name: String, _ values: [Float], shape: [Int])
    throws(ModelFormatsError) -> String
  {
    try define(name, MILConstant(shape: shape, values: .floats(values)))
    return try materialize(name)
  }

  /// An int64 constant added as an initializer; returns its name.
  mutating func integerConstant(_ name: String, _ values: [Int], shape: [Int]? = nil)
    throws(ModelFormatsError) -> String
  {
    try define(
      name, MILConstant(shape: shape ?? [values.count], values: .integers(values.map(Int64.init))))
    return try materialize(name)
  }

  // MARK: - Decoding values

  /// A `Value` (immediate or in a blob file) as a constant.
  mutating func decode(_ value: MILValue, what: String) throws(ModelFormatsError) -> MILConstant {
    switch value.type {
    case .tensor(let type)?:
      guard let shape = type.shape else {
        throw ModelFormatsError(.malformedFile, "ML Program: constant \(what) has no fixed shape")
      }
      let count = try limits.checkedElementCount(of: shape, name: what)
      let values = try decodeValues(value.storage, type: type.dataType, count: count, what: what)
      return MILConstant(shape: shape, values: values)
    case .list?:
      // A list of scalars (`classify`'s classes): one element per item.
      guard case .immediate(.list(let items)) = value.storage else {
        throw ModelFormatsError(.malformedFile, "ML Program: list \(what) has no items")
      }
      _ = try limits.checkedElementCount(of: [items.count], name: what)
      var strings: [String] = []
      var integers: [Int64] = []
      for item in items {
        let element = try decode(item, what: what)
        switch element.values {
        case .strings(let values): strings += values
        default: integers += try element.integers(what)
        }
      }
      return strings.isEmpty
        ? MILConstant(shape: [integers.count], values: .integers(integers))
        : MILConstant(shape: [strings.count], values: .strings(strings))
    default:
      throw ModelFormatsError(.unsupported, "ML Program: constant \(what) is not a tensor")
    }
  }

  private mutating func decodeValues(
    _ storage: MILValue.Storage, type: MILDataType, count: Int, what: String
  ) throws(ModelFormatsError) -> MILConstant.Values {
    switch storage {
    case .blobFile(let fileName, let offset):
      let file = try blobFile(fileName)
      if Self.isFloat(type) { return .floats(try file.floats(at: offset, count: count)) }
      guard type != .bool, type != .string else {
        throw ModelFormatsError(.unsupported, "ML Program: \(what) stores \(type) in a blob file")
      }
      return .integers(try file.integers(at: offset, count: count).map { Int64($0) })
    case .immediate(.tensor(let tensor)):
      let values = try MILImmediateDecoding.values(tensor, type: type, what: what)
      guard values.count == count || (values.count == 1 && count == 1) else {
        throw ModelFormatsError(
          .malformedFile, "ML Program: \(what) has \(values.count) values, its type \(count)")
      }
      return values
    default:
      throw ModelFormatsError(.malformedFile, "ML Program: \(what) has no value")
    }
  }

  private mutating func blobFile(_ name: String) throws(ModelFormatsError) -> MILBlobFile {
    if let file = blobFiles[name] { return file }
    let file = try readBlobFile(name)
    blobFiles[name] = file
    return file
  }

  /// Whether elements of `type` widen to `Float`.
  static func isFloat(_ type: MILDataType) -> Bool {
    switch type {
    case .float16, .float32, .float64, .bfloat16, .float8E4M3FN, .float8E5M2: true
    default: false
    }
  }
}
