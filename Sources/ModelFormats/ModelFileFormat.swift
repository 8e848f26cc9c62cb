package import Foundation

/// The kind of model file at a path, found from its content, never from its name.
///
/// - An `.mlpackage` is a folder with a `Manifest.json`.
/// - A PyTorch checkpoint is a zip archive (`torch.save` since 1.6) or a pickle.
/// - ONNX `ModelProto` and Core ML `Model` are both protobuf messages that begin with their
///   version number, field 1. They differ in the first top-level field after 1 and 2: ONNX's are 3-9 (producer,
///   graph, opsets) and 14, 20 or 25; Core ML's are 10 (`isUpdatable`) and 200 and above (the
///   model type).
package enum ModelFileFormat: Sendable, Equatable {
  /// An ONNX model.
  case onnx
  /// A Core ML model: a neural network or ML Program `.mlmodel`, or an `.mlpackage` folder.
  case coreML
  /// A PyTorch checkpoint (a state dict).
  case pyTorchCheckpoint

  /// Finds the format of the file or folder at `url`, reading at most a few bytes per
  /// top-level field.
  ///
  /// - Parameter url: The model file or `.mlpackage` folder.
  /// - Throws: ``ModelFormatsError``: `io` when it cannot be read, `unsupported` for a folder that
  ///   is not an `.mlpackage` or a file in none of the formats.
  package init(contentsOf url: URL) throws(ModelFormatsError) {
    let path = url.path(percentEncoded: false)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw ModelFormatsError(.io, "the model file \(path) does not exist")
    }
    if isDirectory.boolValue {
      guard FileManager.default.fileExists(atPath: url.appendingPathComponent("Manifest.json").path)
      else {
        throw ModelFormatsError(
          .unsupported, "the folder \(path) is not a Core ML package (it has no Manifest.json)")
      }
      self = .coreML
      return
    }
    guard let file = FileHandle(forReadingAtPath: path) else {
      throw ModelFormatsError(.io, "cannot open the model file \(path)")
    }
    defer { try? file.close() }
    guard let format = try Self.sniff(file) else {
      throw ModelFormatsError(
        .unsupported, "\(path) is not an ONNX, Core ML or PyTorch model file")
    }
    self = format
  }

  /// The most top-level protobuf fields read before giving up.
  private static let fieldsToRead = 32

  /// The format of an open file, or `nil` when its bytes fit none.
  private static func sniff(_ file: FileHandle) throws(ModelFormatsError) -> ModelFileFormat? {
    let head = try read(file, at: 0, count: 4)
    if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .pyTorchCheckpoint }
    if head.count >= 2, head[0] == 0x80, (2...5).contains(head[1]) { return .pyTorchCheckpoint }
    var offset: UInt64 = 0
    for index in 0..<fieldsToRead {
      var window = ArraySlice(try read(file, at: offset, count: 20))
      let start = window.count
      guard let tag = varint(&window) else { return nil }
      let number = tag >> 3
      // Both formats begin with their version number: field 1, a varint.
      guard index > 0 || tag == 0x08, tag & 7 == 0 || tag & 7 == 2 else { return nil }
      switch number {
      case 3...9, 14, 20, 25: return .onnx
      case 10, 200...: return .coreML
      case 1, 2: break
      default: return nil
      }
      // Fields 1 and 2 are in both formats: skip them.
      if tag & 7 == 0 {
        guard varint(&window) != nil else { return nil }
      } else {
        guard let length = varint(&window) else { return nil }
        let (skipped, overflow) = offset.addingReportingOverflow(length)
        guard !overflow else { return nil }
        offset = skipped
      }
      let (next, overflow) = offset.addingReportingOverflow(UInt64(start - window.count))
      guard !overflow else { return nil }
      offset = next
    }
    return nil
  }

  /// Up to `count` bytes at `offset`; fewer at the end of the file.
  private static func read(_ file: FileHandle, at offset: UInt64, count: Int)
    throws(ModelFormatsError) -> [UInt8]
  {
    do {
      try file.seek(toOffset: offset)
      return [UInt8](try file.read(upToCount: count) ?? Data())
    } catch {
      throw ModelFormatsError(.io, "cannot read the model file: \(error)")
    }
  }

  /// Reads a protobuf varint from the front of `bytes`, or `nil` when it is cut off.
  private static func varint(_ bytes: inout ArraySlice<UInt8>) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while let byte = bytes.popFirst(), shift < 64 {
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
    return nil
  }
}
