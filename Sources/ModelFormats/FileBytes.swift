import NeuralCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads and writes whole files for the importers, with the size limit checked before reading.
enum FileBytes {
  /// Reads a file into memory.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - maximumBytes: The largest size accepted.
  /// - Returns: The file's bytes.
  /// - Throws: ``ModelFormatsError`` with code `io` when the file cannot be read and
  ///   `limitExceeded` when it is larger than `maximumBytes`.
  static func read(path: String, maximumBytes: Int) throws(ModelFormatsError) -> [UInt8] {
    let size: Int?
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      // The attribute's integer type differs between Foundation implementations.
      switch attributes[.size] {
      case let value as Int: size = value
      case let value as UInt: size = Int(clamping: value)
      case let value as UInt64: size = Int(clamping: value)
      case let value as Int64: size = Int(clamping: value)
      default: size = nil
      }
    } catch {
      throw ModelFormatsError(.io, "cannot open '\(path)': \(error)")
    }
    guard let size else {
      throw ModelFormatsError(.io, "cannot determine the size of '\(path)'")
    }
    guard size <= maximumBytes else {
      throw ModelFormatsError(
        .limitExceeded, "'\(path)' has \(size) bytes, above the limit \(maximumBytes)")
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ModelFormatsError(.io, "cannot read '\(path)': \(error)")
    }
    guard data.count <= maximumBytes else {
      throw ModelFormatsError(
        .limitExceeded, "'\(path)' has \(data.count) bytes, above the limit \(maximumBytes)")
    }
    return [UInt8](data)
  }

  /// Writes bytes to a file, replacing it atomically.
  ///
  /// - Parameters:
  ///   - bytes: The contents.
  ///   - path: The file's path.
  /// - Throws: ``ModelFormatsError`` with code `io` when the file cannot be written.
  static func write(_ bytes: [UInt8], path: String) throws(ModelFormatsError) {
    do {
      try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw ModelFormatsError(.io, "cannot write '\(path)': \(error)")
    }
  }
}
