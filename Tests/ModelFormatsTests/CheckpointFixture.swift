/// Builds small PyTorch checkpoints byte by byte, in both layouts, mimicking what `torch.save`
/// writes (the opcodes, persistent ids and storage records of the real Lite0 `.pth`, and torch's
/// zip layout `archive/data.pkl`, `archive/data/<key>`, `archive/byteorder`, `archive/version`
/// with stored entries whose data is 64-byte aligned through a local-header extra field).
enum CheckpointFixture {
  /// A storage: its key, torch class name, element count and little-endian bytes.
  struct Storage {
    var key: String
    var type: String
    var count: Int
    var data: [UInt8]
  }

  /// A tensor entry referring to a storage.
  struct TensorEntry {
    var name: String
    var storage: Storage
    var offset: Int
    var shape: [Int]
    var strides: [Int]
  }

  /// The fixture's storages: "0" holds floats 0...5, "1" three biases, "2" an int64, "3" float16.
  static let storages: [Storage] = [
    Storage(key: "0", type: "FloatStorage", count: 6, data: floats([0, 1, 2, 3, 4, 5])),
    Storage(key: "1", type: "FloatStorage", count: 3, data: floats([0.5, -0.25, 8])),
    Storage(key: "2", type: "LongStorage", count: 1, data: [7, 0, 0, 0, 0, 0, 0, 0]),
    Storage(key: "3", type: "HalfStorage", count: 2, data: [0x00, 0x3E, 0x00, 0xC0]),
  ]

  /// The fixture's tensors, including a view at an offset into a shared storage.
  static let tensors: [TensorEntry] = [
    TensorEntry(
      name: "conv.weight", storage: storages[0], offset: 0, shape: [2, 3], strides: [3, 1]),
    TensorEntry(name: "conv.bias", storage: storages[1], offset: 0, shape: [3], strides: [1]),
    TensorEntry(
      name: "bn.num_batches_tracked", storage: storages[2], offset: 0, shape: [], strides: []),
    TensorEntry(name: "tail", storage: storages[0], offset: 4, shape: [2, 1], strides: [1, 1]),
    TensorEntry(name: "half", storage: storages[3], offset: 0, shape: [2], strides: [1]),
  ]

  /// A checkpoint in the legacy layout.
  static func legacy(tensors: [TensorEntry] = tensors, globalOverride: String? = nil) -> [UInt8] {
    var bytes: [UInt8] = [0x80, 2, 0x8A, 10, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50]
    bytes += [0x19, 0x2E]
    bytes += [0x80, 2, 0x4D, 0xE9, 0x03, 0x2E]
    var info = PickleWriter()
    info.op(0x7D)
    info.op(0x28)
    info.string("protocol_version")
    info.int(1001)
    info.string("little_endian")
    info.op(0x88)
    info.string("type_sizes")
    info.op(0x7D)
    info.op(0x28)
    for (name, size) in [("short", 2), ("int", 4), ("long", 4)] {
      info.string(name)
      info.int(size)
    }
    info.op(0x75)
    info.op(0x75)
    bytes += info.finished()
    bytes += stateDictPickle(tensors, legacy: true, globalOverride: globalOverride)
    var keys = PickleWriter()
    keys.op(0x5D)
    keys.put(0)
    keys.op(0x28)
    let used = usedStorages(tensors)
    for storage in used { keys.string(storage.key) }
    keys.op(0x65)
    bytes += keys.finished()
    for storage in used {
      bytes += (0..<8).map { UInt8(truncatingIfNeeded: storage.count >> (8 * $0)) }
      bytes += storage.data
    }
    return bytes
  }

  /// A checkpoint in the zip layout with stored entries.
  static func zip(tensors: [TensorEntry] = tensors, compressPickle: Bool = false) -> [UInt8] {
    var files: [(String, [UInt8])] = [("archive/data.pkl", stateDictPickle(tensors, legacy: false))]
    files.append(("archive/.format_version", Array("1".utf8)))
    files.append(("archive/.storage_alignment", Array("64".utf8)))
    files.append(("archive/byteorder", Array("little".utf8)))
    for storage in usedStorages(tensors) {
      files.append(("archive/data/\(storage.key)", storage.data))
    }
    files.append(("archive/version", Array("3\n".utf8)))
    return ZipWriter.archive(files, markFirstCompressed: compressPickle)
  }

  private static func usedStorages(_ tensors: [TensorEntry]) -> [Storage] {
    var seen: Set<String> = []
    return tensors.map(\.storage).filter { seen.insert($0.key).inserted }
  }

  private static func stateDictPickle(
    _ tensors: [TensorEntry], legacy: Bool, globalOverride: String? = nil
  ) -> [UInt8] {
    var writer = PickleWriter()
    writer.global(globalOverride ?? "collections\nOrderedDict")
    writer.put(0)
    writer.op(0x29)
    writer.op(0x52)
    writer.put(1)
    writer.op(0x28)
    for (index, tensor) in tensors.enumerated() {
      writer.string(tensor.name)
      if index == 0 {
        writer.global("torch._utils\n_rebuild_tensor_v2")
        writer.put(2)
      } else {
        writer.get(2)
      }
      writer.op(0x28)
      writer.op(0x28)
      writer.string("storage")
      writer.global("torch\n\(tensor.storage.type)")
      writer.string(tensor.storage.key)
      writer.string("cpu")
      writer.int(tensor.storage.count)
      if legacy { writer.op(0x4E) }
      writer.op(0x74)
      writer.op(0x51)
      writer.int(tensor.offset)
      writer.tuple(tensor.shape)
      writer.tuple(tensor.strides)
      writer.op(0x89)
      writer.get(0)
      writer.op(0x29)
      writer.op(0x52)
      writer.op(0x74)
      writer.op(0x52)
    }
    writer.op(0x75)
    // torch pickles the state dict's `_metadata` attribute as BUILD state.
    writer.op(0x7D)
    writer.string("_metadata")
    writer.get(0)
    writer.op(0x29)
    writer.op(0x52)
    writer.op(0x73)
    writer.op(0x62)
    return writer.finished()
  }

  private static func floats(_ values: [Float]) -> [UInt8] {
    values.flatMap { value in
      (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
    }
  }
}

/// Emits protocol-2 pickle opcodes.
struct PickleWriter {
  private(set) var bytes: [UInt8] = [0x80, 2]

  mutating func op(_ opcode: UInt8) { bytes.append(opcode) }

  mutating func string(_ text: String) {
    let utf8 = Array(text.utf8)
    bytes.append(0x58)
    bytes += (0..<4).map { UInt8(truncatingIfNeeded: utf8.count >> (8 * $0)) }
    bytes += utf8
  }

  mutating func int(_ value: Int) {
    switch value {
    case 0..<256: bytes += [0x4B, UInt8(value)]
    case 256..<65_536: bytes += [0x4D, UInt8(value & 0xFF), UInt8(value >> 8)]
    case -(1 << 31)..<(1 << 31):
      bytes.append(0x4A)
      bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    default:
      bytes += [0x8A, 8]
      bytes += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
  }

  mutating func tuple(_ values: [Int]) {
    bytes.append(0x28)
    for value in values { int(value) }
    bytes.append(0x74)
  }

  mutating func global(_ moduleNewlineName: String) {
    bytes.append(0x63)
    bytes += Array((moduleNewlineName + "\n").utf8)
  }

  mutating func put(_ index: UInt8) { bytes += [0x71, index] }

  mutating func get(_ index: UInt8) { bytes += [0x68, index] }

  func finished() -> [UInt8] { bytes + [0x2E] }
}

/// Writes zip archives of stored entries, data aligned to 64 bytes like torch's writer.
enum ZipWriter {
  static func archive(_ files: [(String, [UInt8])], markFirstCompressed: Bool = false) -> [UInt8] {
    var bytes: [UInt8] = []
    var central: [UInt8] = []
    for (index, (name, data)) in files.enumerated() {
      let nameBytes = Array(name.utf8)
      let offset = bytes.count
      let unpadded = offset + 30 + nameBytes.count + 4
      let padding = (64 - unpadded % 64) % 64
      let crc = crc32(data)
      let method: UInt16 = markFirstCompressed && index == 0 ? 8 : 0
      bytes += le32(0x0403_4B50) + le16(20) + le16(0) + le16(method) + le16(0) + le16(0)
      bytes += le32(crc) + le32(UInt32(data.count)) + le32(UInt32(data.count))
      bytes += le16(UInt16(nameBytes.count)) + le16(UInt16(4 + padding)) + nameBytes
      bytes += le16(0x4246) + le16(UInt16(padding)) + [UInt8](repeating: 0x5A, count: padding)
      bytes += data
      central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(method) + le16(0)
      central += le16(0) + le32(crc) + le32(UInt32(data.count)) + le32(UInt32(data.count))
      central += le16(UInt16(nameBytes.count)) + le16(0) + le16(0) + le16(0) + le16(0)
      central += le32(0) + le32(UInt32(offset)) + nameBytes
    }
    let directoryOffset = bytes.count
    bytes += central
    bytes += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(files.count))
    bytes += le16(UInt16(files.count)) + le32(UInt32(central.count))
    bytes += le32(UInt32(directoryOffset)) + le16(0)
    return bytes
  }

  static func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
  }

  private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

  private static func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
}
