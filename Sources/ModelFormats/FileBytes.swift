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
  /// - Throws: `NeuralCoreError` with code `io` when the file cannot be read and
  ///   `limitExceeded` when it is larger than `maximumBytes`.
  static func read(path: String, maximumBytes: Int) throws(NeuralCoreError) -> [UInt8] {
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
      throw NeuralCoreError(.io, "cannot open '\(path)': \(error)")
    }
    guard let size else {
      throw NeuralCoreError(.io, "cannot determine the size of '\(path)'")
    }
    guard size <= maximumBytes else {
      throw NeuralCoreError(
        .limitExceeded, "'\(path)' has \(size) bytes, above the limit \(maximumBytes)")
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw NeuralCoreError(.io, "cannot read '\(path)': \(error)")
    }
    guard data.count <= maximumBytes else {
      throw NeuralCoreError(
        .limitExceeded, "'\(path)' has \(data.count) bytes, above the limit \(maximumBytes)")
    }
    return [UInt8](data)
  }

  /// Writes bytes to a file, replacing it atomically.
  ///
  /// - Parameters:
  ///   - bytes: The contents.
  ///   - path: The file's path.
  /// - Throws: `NeuralCoreError` with code `io` when the file cannot be written.
  static func write(_ bytes: [UInt8], path: String) throws(NeuralCoreError) {
    do {
      try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw NeuralCoreError(.io, "cannot write '\(path)': \(error)")
    }
  }
}
