import NeuralCore

/// A value on the stack of ``PickleMachine``: only what a PyTorch state dict can contain.
///
/// Lists and dictionaries are mutable in pickle and shared through the memo, so they live in the
/// machine's arena and values refer to them by index.
enum PickleValue: Sendable, Hashable {
  case none
  case bool(Bool)
  case int(Int64)
  /// An integer wider than 64 bits, as little-endian two's-complement bytes.
  case bigInt([UInt8])
  case float(Double)
  case string(String)
  case bytes([UInt8])
  /// A tuple with its nesting depth (1 for a tuple of scalars), kept so that deep nesting is
  /// refused when it is built rather than discovered by recursion.
  case tuple([PickleValue], depth: Int)
  case list(Int)
  case dict(Int)
  /// An allow-listed global: a callable or a storage class, by its `module.name`.
  case global(String)
  case storage(PickleStorageReference)
  case tensor(PickleTensorReference)

  /// How deeply tuples nest inside this value; 0 for everything but tuples.
  var depth: Int {
    guard case .tuple(_, let depth) = self else { return 0 }
    return depth
  }

  /// A short description for error messages.
  var kind: String {
    switch self {
    case .none: "None"
    case .bool: "bool"
    case .int, .bigInt: "int"
    case .float: "float"
    case .string: "str"
    case .bytes: "bytes"
    case .tuple: "tuple"
    case .list: "list"
    case .dict: "dict"
    case .global(let name): name
    case .storage: "storage"
    case .tensor: "tensor"
    }
  }
}

/// A storage named by a persistent id: `('storage', torch.FloatStorage, key, location, numel)`.
struct PickleStorageReference: Sendable, Hashable {
  var type: PyTorchStorageType
  var key: String
  var elementCount: Int
}

/// A call of `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`.
struct PickleTensorReference: Sendable, Hashable {
  var storage: PickleStorageReference
  var offset: Int
  var shape: [Int]
  var strides: [Int]
}
