package import Foundation
import NeuralCore

extension StateDict {
  /// Loads a PyTorch checkpoint file holding a state dict (`torch.save(model.state_dict(), ...)`).
  ///
  /// - Parameters:
  ///   - url: The `.pth` or `.pt` file.
  ///   - limits: Bounds on file size, tensor rank and element count, and pickle nesting.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for damaged
  ///   data, `unsupported` for anything outside the state-dict pickle subset (an unknown global,
  ///   a compressed zip entry, strides that leave the storage), `limitExceeded` past a limit.
  package init(contentsOf url: URL, limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    let bytes = try FileBytes.read(
      path: url.path(percentEncoded: false), maximumBytes: limits.maximumFileBytes)
    try self.init(serializedBytes: bytes, limits: limits)
  }

  /// Decodes the bytes of a PyTorch checkpoint in the zip or the legacy layout.
  ///
  /// - Parameters:
  ///   - bytes: The whole checkpoint.
  ///   - limits: Bounds on size, tensor rank and element count, and pickle nesting.
  /// - Throws: ``ModelFormatsError`` as for ``init(contentsOf:limits:)``.
  package init(serializedBytes bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    try limits.checkFileSize(bytes.count, of: "checkpoint")
    let reader = CheckpointReader(bytes: bytes, limits: limits)
    if ZipArchive.looksLikeZip(bytes) {
      self = try reader.readZipLayout()
    } else if bytes.count >= 2, bytes[0] == 0x80, bytes[1] == 2 {
      self = try reader.readLegacyLayout()
    } else {
      throw ModelFormatsError(
        .malformedFile, "not a PyTorch checkpoint: neither a zip archive nor a protocol-2 pickle")
    }
  }
}

/// Reads both checkpoint layouts (Docs/Design.md section 3) into a ``StateDict``.
private struct CheckpointReader {
  let bytes: [UInt8]
  let limits: ImportLimits

  /// The first pickle of a legacy file: the integer 0x1950a86a20f9469cfc6c, little-endian.
  private static let legacyMagic: [UInt8] = [
    0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19,
  ]

  func readZipLayout() throws(ModelFormatsError) -> StateDict {
    let archive = try ZipArchive(bytes)
    let pickles = archive.entries.filter {
      $0.name.hasSuffix("/data.pkl") && !$0.name.dropLast(9).contains("/")
    }
    guard pickles.count == 1, let pickleEntry = pickles.first else {
      throw ModelFormatsError(
        .malformedFile, "zip checkpoint has \(pickles.count) '<name>/data.pkl' entries, not one")
    }
    let prefix = String(pickleEntry.name.dropLast(8))
    if let order = archive.entries.first(where: { $0.name == prefix + "byteorder" }) {
      let text = String(decoding: bytes[try archive.dataRange(of: order)], as: UTF8.self)
      guard text == "little" else {
        throw ModelFormatsError(.unsupported, "checkpoint byte order '\(text)'")
      }
    }
    let pickleRange = try archive.dataRange(of: pickleEntry)
    var machine = PickleMachine(
      bytes: Array(bytes[pickleRange]), offset: 0, maximumDepth: limits.maximumNestingDepth)
    let root = try machine.load()
    let entriesByName = Dictionary(
      archive.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    return try stateDict(from: root, machine: machine) { storage throws(ModelFormatsError) in
      guard let entry = entriesByName[prefix + "data/" + storage.key] else {
        throw ModelFormatsError(.missingValue, "storage '\(storage.key)' has no zip entry")
      }
      return try archive.dataRange(of: entry)
    }
  }

  func readLegacyLayout() throws(ModelFormatsError) -> StateDict {
    var machine = PickleMachine(
      bytes: bytes, offset: 0, maximumDepth: limits.maximumNestingDepth)
    guard case .bigInt(Self.legacyMagic) = try machine.load() else {
      throw ModelFormatsError(.malformedFile, "legacy checkpoint without the PyTorch magic number")
    }
    guard case .int(let version) = try machine.load(), version == 1001 else {
      throw ModelFormatsError(.unsupported, "legacy checkpoint protocol version is not 1001")
    }
    guard case .dict(let systemInfo) = try machine.load() else {
      throw ModelFormatsError(.malformedFile, "legacy checkpoint without system information")
    }
    for (key, value) in machine.entries(of: systemInfo)
    where key == .string("little_endian") && value != .bool(true) {
      throw ModelFormatsError(.unsupported, "big-endian checkpoints are not supported")
    }
    let root = try machine.load()
    guard case .list(let keyList) = try machine.load() else {
      throw ModelFormatsError(.malformedFile, "legacy checkpoint without its list of storage keys")
    }
    // The storages follow the pickles in key-list order: an 8-byte element count, then the data.
    // Their element types come from the references in the state dict.
    let storagesByKey = try referencedStorages(root, machine: machine)
    var ranges: [String: Range<Int>] = [:]
    var offset = machine.position
    for keyValue in machine.lists[keyList] {
      guard case .string(let key) = keyValue, let storage = storagesByKey[key] else {
        throw ModelFormatsError(.malformedFile, "storage key \(keyValue) is not referenced")
      }
      guard bytes.count - offset >= 8 else {
        throw ModelFormatsError(.malformedFile, "storage '\(key)' is truncated")
      }
      let count = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
      offset += 8
      guard count == UInt64(storage.elementCount),
        storage.elementCount <= (bytes.count - offset) / storage.type.width
      else {
        throw ModelFormatsError(
          .malformedFile,
          "storage '\(key)' declares \(count) elements where \(storage.elementCount) were expected "
            + "or runs past the end of the file")
      }
      let length = storage.elementCount * storage.type.width
      ranges[key] = offset..<(offset + length)
      offset += length
    }
    return try stateDict(from: root, machine: machine) { storage throws(ModelFormatsError) in
      guard let range = ranges[storage.key] else {
        throw ModelFormatsError(.missingValue, "storage '\(storage.key)' is missing from the file")
      }
      return range
    }
  }

  private func rootEntries(_ root: PickleValue, machine: PickleMachine) throws(ModelFormatsError)
    -> [(key: PickleValue, value: PickleValue)]
  {
    guard case .dict(let index) = root else {
      throw ModelFormatsError(
        .unsupported, "the checkpoint holds a \(root.kind), not a state dict of name -> tensor")
    }
    return machine.entries(of: index)
  }

  private func referencedStorages(_ root: PickleValue, machine: PickleMachine)
    throws(ModelFormatsError) -> [String: PickleStorageReference]
  {
    var result: [String: PickleStorageReference] = [:]
    for (_, value) in try rootEntries(root, machine: machine) {
      if case .tensor(let tensor) = value { result[tensor.storage.key] = tensor.storage }
    }
    return result
  }

  private func stateDict(
    from root: PickleValue, machine: PickleMachine,
    storageRange: (PickleStorageReference) throws(ModelFormatsError) -> Range<Int>
  ) throws(ModelFormatsError) -> StateDict {
    var entries: [StateDict.Entry] = []
    for (key, value) in try rootEntries(root, machine: machine) {
      guard case .string(let name) = key else {
        throw ModelFormatsError(.unsupported, "state dict key is a \(key.kind), not a name")
      }
      guard case .tensor(let reference) = value else {
        throw ModelFormatsError(
          .unsupported, "state dict entry '\(name)' is a \(value.kind), not a tensor")
      }
      let range = try storageRange(reference.storage)
      let tensor = try self.tensor(reference, name: name, storageBytes: range)
      entries.append(
        StateDict.Entry(
          name: name, tensor: tensor, elementType: reference.storage.type.elementType))
    }
    return StateDict(entries: entries)
  }

  /// Copies a strided view (such as a permuted weight) into row-major order.
  ///
  /// The caller checked that every index the strides reach lies inside `span`.
  private func gather(_ span: [Float], shape: [Int], strides: [Int]) -> [Float] {
    let count = shape.reduce(1, *)
    let innerCount = shape[shape.count - 1]
    let innerStride = strides[strides.count - 1]
    var index = [Int](repeating: 0, count: shape.count - 1)
    var offset = 0
    return [Float](unsafeUninitializedCapacity: count) { result, initialized in
      span.withUnsafeBufferPointer { source in
        // Safety: offsets stay within span (checked by the caller against the strides' reach),
        // and exactly `count` elements of result are written, row by row.
        var written = 0
        while written < count {
          var position = offset
          for column in 0..<innerCount {
            result[written + column] = source[position]
            position += innerStride
          }
          written += innerCount
          var axis = index.count - 1
          while axis >= 0 {
            index[axis] += 1
            offset += strides[axis]
            if index[axis] < shape[axis] { break }
            offset -= strides[axis] * index[axis]
            index[axis] = 0
            axis -= 1
          }
        }
        initialized = count
      }
    }
  }

  private func tensor(_ reference: PickleTensorReference, name: String, storageBytes: Range<Int>)
    throws(ModelFormatsError) -> Tensor
  {
    let shape = reference.shape
    let count = try limits.checkedElementCount(of: shape, name: name)
    guard reference.strides.count == shape.count else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' has \(shape.count) sizes but "
          + "\(reference.strides.count) strides")
    }
    // The span the strides reach must lie inside the storage; an empty tensor reads nothing.
    let width = reference.storage.type.width
    let available = storageBytes.count / width
    guard reference.offset >= 0, reference.offset <= available else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' starts at element \(reference.offset) of a storage of \(available)")
    }
    var last = reference.offset
    var isContiguous = true
    var expectedStride = 1
    for axis in shape.indices.reversed() where shape[axis] != 1 && count > 0 {
      let stride = reference.strides[axis]
      let (reach, overflow) = (shape[axis] - 1).multipliedReportingOverflow(by: stride)
      guard stride >= 0, !overflow, reach <= available else {
        throw ModelFormatsError(
          .malformedFile, "tensor '\(name)' has stride \(stride) on a dimension of \(shape[axis])")
      }
      last += reach
      isContiguous = isContiguous && stride == expectedStride
      expectedStride *= shape[axis]
    }
    guard count == 0 || last < available else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' (offset \(reference.offset), strides \(reference.strides), shape "
          + "\(shape)) runs past its storage of \(available) elements")
    }
    guard count > 0 else { return try Tensor(fileShape: shape, scalars: []) }
    let start = storageBytes.lowerBound + reference.offset * width
    let span = reference.storage.type.floats(
      in: bytes, at: start, count: isContiguous ? count : last - reference.offset + 1)
    let scalars = isContiguous ? span : gather(span, shape: shape, strides: reference.strides)
    return try Tensor(fileShape: shape, scalars: scalars)
  }
}
