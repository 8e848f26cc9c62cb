import NeuralCore

/// A pickle reader for exactly the protocol-2 subset that PyTorch state dicts use.
///
/// It never imports or calls anything: `GLOBAL` resolves only the allow-listed names below to
/// markers, `REDUCE` only builds an `OrderedDict` or a tensor reference from them, and persistent
/// ids only name storages. Every other opcode or global is refused with `unsupported`, so a hostile
/// pickle (`os.system`, `builtins.eval`, ...) is rejected before anything happens.
struct PickleMachine {
  /// The globals a state dict needs.
  static let allowedGlobals = Set(
    [
      "collections.OrderedDict", "torch._utils._rebuild_tensor_v2",
      "torch._utils._rebuild_parameter",
    ] + PyTorchStorageType.allCases.map { "torch.\($0.rawValue)" })

  let bytes: [UInt8]
  private(set) var position: Int
  private let maximumDepth: Int
  /// Lists by arena index.
  private(set) var lists: [[PickleValue]] = []
  /// Dictionaries by arena index, entries in insertion order.
  private(set) var dicts: [[(key: PickleValue, value: PickleValue)]] = []
  private var dictIndexes: [[String: Int]] = []
  private var stack: [PickleValue] = []
  private var marks: [Int] = []
  private var memo: [Int: PickleValue] = [:]

  /// Creates a machine that reads pickles from `bytes` starting at `offset`.
  ///
  /// - Parameters:
  ///   - bytes: The buffer.
  ///   - offset: Where the first pickle starts.
  ///   - maximumDepth: The deepest nesting of `MARK`s allowed.
  init(bytes: [UInt8], offset: Int, maximumDepth: Int) {
    self.bytes = bytes
    self.position = offset
    self.maximumDepth = maximumDepth
  }

  /// The entries of a dictionary value.
  func entries(of index: Int) -> [(key: PickleValue, value: PickleValue)] {
    dicts[index]
  }

  /// Runs one pickle to its `STOP` and returns the value it produced.
  ///
  /// The memo is reset, as each pickle in a legacy checkpoint is written by its own pickler.
  /// - Returns: The pickled value.
  /// - Throws: `malformedFile` for truncated or inconsistent data, `unsupported` for an opcode or
  ///   global outside the subset.
  mutating func load() throws(ModelFormatsError) -> PickleValue {
    stack.removeAll()
    marks.removeAll()
    memo.removeAll()
    while true {
      let opcodeOffset = position
      let opcode = try byte()
      switch opcode {
      case 0x80:  // PROTO
        let version = try byte()
        guard version <= 5 else {
          throw failure(.unsupported, "pickle protocol \(version)", at: opcodeOffset)
        }
      case 0x2E:  // STOP
        let result = try pop(at: opcodeOffset)
        guard stack.isEmpty, marks.isEmpty else {
          throw failure(.malformedFile, "values left on the stack at STOP", at: opcodeOffset)
        }
        return result
      case 0x28:  // MARK
        guard marks.count < maximumDepth else {
          throw ModelFormatsError(
            .limitExceeded, "pickle nests deeper than \(maximumDepth) at byte \(opcodeOffset)")
        }
        marks.append(stack.count)
      case 0x29: stack.append(.tuple([], depth: 1))  // EMPTY_TUPLE
      case 0x5D:  // EMPTY_LIST
        lists.append([])
        stack.append(.list(lists.count - 1))
      case 0x7D:  // EMPTY_DICT
        stack.append(.dict(newDict()))
      case 0x74: stack.append(try tuple(try popMark(at: opcodeOffset), at: opcodeOffset))  // TUPLE
      case 0x85, 0x86, 0x87:  // TUPLE1, TUPLE2, TUPLE3
        let count = Int(opcode - 0x84)
        guard stack.count >= count, stack.count - count >= (marks.last ?? 0) else {
          throw failure(.malformedFile, "stack underflow", at: opcodeOffset)
        }
        let items = Array(stack.suffix(count))
        stack.removeLast(count)
        stack.append(try tuple(items, at: opcodeOffset))
      case 0x61:  // APPEND
        let item = try pop(at: opcodeOffset)
        try append([item], at: opcodeOffset)
      case 0x65:  // APPENDS
        let items = try popMark(at: opcodeOffset)
        try append(items, at: opcodeOffset)
      case 0x73:  // SETITEM
        let value = try pop(at: opcodeOffset)
        let key = try pop(at: opcodeOffset)
        try setItems([key, value], at: opcodeOffset)
      case 0x75:  // SETITEMS
        let items = try popMark(at: opcodeOffset)
        guard items.count % 2 == 0 else {
          throw failure(.malformedFile, "SETITEMS with an odd number of items", at: opcodeOffset)
        }
        try setItems(items, at: opcodeOffset)
      case 0x4E: stack.append(.none)  // NONE
      case 0x88: stack.append(.bool(true))  // NEWTRUE
      case 0x89: stack.append(.bool(false))  // NEWFALSE
      case 0x4B: stack.append(.int(Int64(try byte())))  // BININT1
      case 0x4D: stack.append(.int(Int64(try unsigned(2))))  // BININT2
      case 0x4A:  // BININT
        stack.append(.int(Int64(Int32(bitPattern: UInt32(try unsigned(4))))))
      case 0x8A:  // LONG1
        let count = Int(try byte())
        stack.append(integer(littleEndian: try take(count)))
      case 0x47:  // BINFLOAT, big-endian
        let big = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        stack.append(.float(Double(bitPattern: big)))
      case 0x58, 0x54:  // BINUNICODE, BINSTRING
        let count = try unsigned(4)
        stack.append(.string(String(decoding: try take(count), as: UTF8.self)))
      case 0x8C, 0x55:  // SHORT_BINUNICODE, SHORT_BINSTRING
        let count = Int(try byte())
        stack.append(.string(String(decoding: try take(count), as: UTF8.self)))
      case 0x42:  // BINBYTES
        stack.append(.bytes(try take(try unsigned(4))))
      case 0x43:  // SHORT_BINBYTES
        stack.append(.bytes(try take(Int(try byte()))))
      case 0x63:  // GLOBAL
        let module = try line(at: opcodeOffset)
        let name = try line(at: opcodeOffset)
        let qualified = "\(module).\(name)"
        guard Self.allowedGlobals.contains(qualified) else {
          throw failure(
            .unsupported,
            "global '\(qualified)' is outside the state-dict subset; refusing to load it",
            at: opcodeOffset)
        }
        stack.append(.global(qualified))
      case 0x52:  // REDUCE
        let arguments = try pop(at: opcodeOffset)
        let callable = try pop(at: opcodeOffset)
        stack.append(try reduce(callable, arguments, at: opcodeOffset))
      case 0x62:  // BUILD
        let state = try pop(at: opcodeOffset)
        guard case .dict = stack.last else {
          throw failure(
            .unsupported, "BUILD on a \(stack.last?.kind ?? "nothing")", at: opcodeOffset)
        }
        // An OrderedDict's state holds attributes such as `_metadata`, not entries: ignored.
        switch state {
        case .none, .dict: break
        default:
          throw failure(.unsupported, "BUILD with a \(state.kind) state", at: opcodeOffset)
        }
      case 0x51:  // BINPERSID
        let identifier = try pop(at: opcodeOffset)
        stack.append(.storage(try storage(identifier, at: opcodeOffset)))
      case 0x71: try put(Int(try byte()), at: opcodeOffset)  // BINPUT
      case 0x72: try put(try unsigned(4), at: opcodeOffset)  // LONG_BINPUT
      case 0x94: try put(memo.count, at: opcodeOffset)  // MEMOIZE
      case 0x68: try get(Int(try byte()), at: opcodeOffset)  // BINGET
      case 0x6A: try get(try unsigned(4), at: opcodeOffset)  // LONG_BINGET
      default:
        throw failure(
          .unsupported,
          "opcode 0x\(String(opcode, radix: 16)) is outside the state-dict subset",
          at: opcodeOffset)
      }
    }
  }

  private mutating func reduce(_ callable: PickleValue, _ arguments: PickleValue, at offset: Int)
    throws(ModelFormatsError) -> PickleValue
  {
    guard case .global(let name) = callable, case .tuple(let items, _) = arguments else {
      throw failure(
        .unsupported, "REDUCE of a \(callable.kind) with \(arguments.kind)", at: offset)
    }
    switch name {
    case "collections.OrderedDict":
      guard items.isEmpty else {
        throw failure(.unsupported, "OrderedDict built with arguments", at: offset)
      }
      return .dict(newDict())
    case "torch._utils._rebuild_tensor_v2":
      guard items.count >= 4, case .storage(let storage) = items[0],
        case .int(let start) = items[1],
        let shape = integers(items[2]), let strides = integers(items[3]),
        let first = Int(exactly: start)
      else {
        throw failure(.malformedFile, "_rebuild_tensor_v2 with unexpected arguments", at: offset)
      }
      return .tensor(
        PickleTensorReference(storage: storage, offset: first, shape: shape, strides: strides))
    case "torch._utils._rebuild_parameter":
      guard let tensor = items.first, case .tensor = tensor else {
        throw failure(.malformedFile, "_rebuild_parameter without a tensor", at: offset)
      }
      return tensor
    default:
      throw failure(.unsupported, "calling '\(name)'", at: offset)
    }
  }

  private func storage(_ identifier: PickleValue, at offset: Int) throws(ModelFormatsError)
    -> PickleStorageReference
  {
    guard case .tuple(let items, _) = identifier, items.count >= 5,
      case .string("storage") = items[0], case .global(let typeName) = items[1],
      case .string(let key) = items[2], case .int(let count) = items[4], count >= 0
    else {
      throw failure(.unsupported, "persistent id is not a storage reference", at: offset)
    }
    guard items.count == 5 || items[5] == .none else {
      throw failure(.unsupported, "storage views are not supported", at: offset)
    }
    guard typeName.hasPrefix("torch."),
      let type = PyTorchStorageType(rawValue: String(typeName.dropFirst(6)))
    else {
      throw failure(.unsupported, "storage type '\(typeName)'", at: offset)
    }
    return PickleStorageReference(type: type, key: key, elementCount: Int(count))
  }

  private func integers(_ value: PickleValue) -> [Int]? {
    guard case .tuple(let items, _) = value else { return nil }
    var result: [Int] = []
    for item in items {
      guard case .int(let integer) = item else { return nil }
      result.append(Int(integer))
    }
    return result
  }

  private func tuple(_ items: [PickleValue], at offset: Int) throws(ModelFormatsError)
    -> PickleValue
  {
    let depth = 1 + items.reduce(0) { max($0, $1.depth) }
    guard depth <= maximumDepth else {
      throw ModelFormatsError(
        .limitExceeded, "pickle: tuples nest deeper than \(maximumDepth) at byte \(offset)")
    }
    return .tuple(items, depth: depth)
  }

  private mutating func newDict() -> Int {
    dicts.append([])
    dictIndexes.append([:])
    return dicts.count - 1
  }

  private mutating func append(_ items: [PickleValue], at offset: Int) throws(ModelFormatsError) {
    guard case .list(let index) = stack.last else {
      throw failure(.malformedFile, "APPEND to a \(stack.last?.kind ?? "nothing")", at: offset)
    }
    lists[index].append(contentsOf: items)
  }

  private mutating func setItems(_ items: [PickleValue], at offset: Int) throws(ModelFormatsError) {
    guard case .dict(let index) = stack.last else {
      throw failure(.malformedFile, "SETITEM on a \(stack.last?.kind ?? "nothing")", at: offset)
    }
    for pair in stride(from: 0, to: items.count, by: 2) {
      let key = items[pair]
      let value = items[pair + 1]
      if case .string(let name) = key, let existing = dictIndexes[index][name] {
        dicts[index][existing].value = value
      } else {
        if case .string(let name) = key { dictIndexes[index][name] = dicts[index].count }
        dicts[index].append((key, value))
      }
    }
  }

  private mutating func put(_ index: Int, at offset: Int) throws(ModelFormatsError) {
    guard let top = stack.last else {
      throw failure(.malformedFile, "memo store with an empty stack", at: offset)
    }
    memo[index] = top
  }

  private mutating func get(_ index: Int, at offset: Int) throws(ModelFormatsError) {
    guard let value = memo[index] else {
      throw failure(.malformedFile, "memo entry \(index) was never stored", at: offset)
    }
    stack.append(value)
  }

  private mutating func pop(at offset: Int) throws(ModelFormatsError) -> PickleValue {
    guard let value = stack.last, stack.count > (marks.last ?? 0) else {
      throw failure(.malformedFile, "stack underflow", at: offset)
    }
    stack.removeLast()
    return value
  }

  private mutating func popMark(at offset: Int) throws(ModelFormatsError) -> [PickleValue] {
    guard let mark = marks.popLast() else {
      throw failure(.malformedFile, "no MARK to pop to", at: offset)
    }
    let items = Array(stack[mark...])
    stack.removeSubrange(mark...)
    return items
  }

  private func integer(littleEndian digits: [UInt8]) -> PickleValue {
    guard digits.count <= 8 else { return .bigInt(digits) }
    guard let last = digits.last else { return .int(0) }
    var value: UInt64 = last & 0x80 != 0 ? ~0 : 0
    for digit in digits.reversed() { value = value << 8 | UInt64(digit) }
    return .int(Int64(bitPattern: value))
  }

  private mutating func byte() throws(ModelFormatsError) -> UInt8 {
    guard position < bytes.count else {
      throw failure(.malformedFile, "truncated pickle", at: position)
    }
    position += 1
    return bytes[position - 1]
  }

  private mutating func unsigned(_ width: Int) throws(ModelFormatsError) -> Int {
    try take(width).reversed().reduce(0) { $0 << 8 | Int($1) }
  }

  private mutating func take(_ count: Int) throws(ModelFormatsError) -> [UInt8] {
    guard count >= 0, count <= bytes.count - position else {
      throw failure(
        .malformedFile, "pickle field of \(count) bytes runs past the end", at: position)
    }
    position += count
    return Array(bytes[(position - count)..<position])
  }

  private mutating func line(at offset: Int) throws(ModelFormatsError) -> String {
    let start = position
    // Python identifiers in a GLOBAL are short; a missing newline is damage, not a long name.
    let limit = min(bytes.count, start + 256)
    guard let newline = bytes[start..<limit].firstIndex(of: 0x0A) else {
      throw failure(.malformedFile, "GLOBAL without a newline", at: offset)
    }
    position = newline + 1
    return String(decoding: bytes[start..<newline], as: UTF8.self)
  }

  private func failure(_ code: ModelFormatsError.Code, _ message: String, at offset: Int)
    -> ModelFormatsError
  {
    ModelFormatsError(code, "pickle: \(message) at byte \(offset)")
  }
}
