import Foundation
import NeuralCore

/// Reads the tensors an ONNX model keeps outside its protobuf (`data_location = EXTERNAL`), as
/// exporters write models past protobuf's 2 GB: one file per tensor, or one file with offsets.
///
/// Locations are resolved against the model file's folder and must stay inside it: an absolute
/// path, a `..` component or an empty name is refused, as ONNX Runtime refuses them. Every read is
/// bounds-checked against the file's size, and the bytes read across the whole model are capped
/// by ``ImportLimits/maximumExternalDataBytes``, so a small hostile model cannot make the importer
/// read the same gigabytes many times.
final class ONNXExternalData {
  /// The folder the locations are relative to.
  let directory: URL
  private var remainingBytes: Int
  private var handles: [String: (handle: FileHandle, size: UInt64)] = [:]

  /// Creates a reader for the model file at `modelPath`.
  ///
  /// - Parameters:
  ///   - modelPath: The `.onnx` file's path.
  ///   - limits: The limits; ``ImportLimits/maximumExternalDataBytes`` caps the total read.
  init(modelPath: String, limits: ImportLimits) {
    directory = URL(fileURLWithPath: modelPath).deletingLastPathComponent()
    remainingBytes = limits.maximumExternalDataBytes
  }

  /// Reads `byteCount` bytes of a tensor.
  ///
  /// - Parameters:
  ///   - location: The `location` entry of the tensor's `external_data`.
  ///   - offset: The `offset` entry, or 0.
  ///   - length: The `length` entry, if present; it must equal `byteCount`.
  ///   - byteCount: The size the tensor's type and shape need.
  ///   - name: The tensor's name, for messages.
  /// - Returns: The bytes.
  /// - Throws: ``ModelFormatsError``: `malformedFile` for a location outside the model's folder, a
  ///   length that does not fit the tensor or a range past the file's end; `io` when the file
  ///   cannot be read; `limitExceeded` past the total limit.
  func read(
    location: String, offset: Int, length: Int?, byteCount: Int, name: String
  ) throws(ModelFormatsError) -> [UInt8] {
    if let length, length != byteCount {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' declares \(length) bytes of external data but needs \(byteCount)")
    }
    guard byteCount <= remainingBytes else {
      throw ModelFormatsError(
        .limitExceeded,
        "tensor '\(name)' would take the model's external data past the limit of "
          + "\(remainingBytes) more bytes")
    }
    let file = try open(location, name: name)
    let end = offset.addingReportingOverflow(byteCount)
    guard offset >= 0, !end.overflow, UInt64(end.partialValue) <= file.size else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' reads bytes \(offset)..<\(offset &+ byteCount) of '\(location)', "
          + "which has \(file.size)")
    }
    let data: Data?
    do {
      try file.handle.seek(toOffset: UInt64(offset))
      data = try file.handle.read(upToCount: byteCount)
    } catch {
      throw ModelFormatsError(.io, "cannot read '\(location)' for tensor '\(name)': \(error)")
    }
    guard let data, data.count == byteCount else {
      throw ModelFormatsError(
        .io, "'\(location)' ended before the \(byteCount) bytes of tensor '\(name)'")
    }
    remainingBytes -= byteCount
    return [UInt8](data)
  }

  private func open(_ location: String, name: String) throws(ModelFormatsError)
    -> (handle: FileHandle, size: UInt64)
  {
    if let file = handles[location] { return file }
    let components = location.split(separator: "/", omittingEmptySubsequences: false)
    guard !location.isEmpty, !location.hasPrefix("/"), !location.contains("\0"),
      !location.contains("\\"), !components.contains(".."), !components.contains("")
    else {
      throw ModelFormatsError(
        .malformedFile,
        "tensor '\(name)' names external data '\(location)', which is not a file beside the "
          + "model")
    }
    let url = directory.appendingPathComponent(location)
    let file: (handle: FileHandle, size: UInt64)
    do {
      let values = try url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
      guard values.isRegularFile == true, let size = values.fileSize else {
        throw ModelFormatsError(.io, "external data '\(location)' is not a regular file")
      }
      file = (try FileHandle(forReadingFrom: url), UInt64(size))
    } catch let error as ModelFormatsError {
      throw error
    } catch {
      throw ModelFormatsError(
        .io, "cannot open external data '\(location)' of tensor '\(name)': \(error)")
    }
    handles[location] = file
    return file
  }
}
