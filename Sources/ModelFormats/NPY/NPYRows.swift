import Foundation

/// A two-dimensional `.npy` array read a block of rows at a time.
///
/// An array larger than memory (a million feature prints) streams with bounded memory. A
/// one-dimensional array is one row. Element types convert to float32 as ``NPYFile`` converts them.
package struct NPYRows {
  /// The number of rows.
  package let rows: Int
  /// Values per row.
  package let columns: Int
  private let layout: NPYFile.Layout
  private let handle: FileHandle

  /// Opens a file and checks that its size matches its header.
  ///
  /// - Parameter path: The file's path.
  /// - Throws: ``ModelFormatsError``: `io` when it cannot be read, `malformedFile` for a
  ///   damaged header or a data size that does not match it, `unsupported` for an array of
  ///   more than two dimensions or a type the reader refuses.
  package init(contentsOfFile path: String) throws(ModelFormatsError) {
    let limits = ImportLimits(maximumFileBytes: Int.max, maximumElementCount: 1 << 40)
    do {
      handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      let prefix = try handle.read(upToCount: 12 + NPYFile.maximumHeaderBytes) ?? Data()
      layout = try NPYFile.Layout(prefix: Array(prefix), limits: limits)
      let size = try handle.seekToEnd()
      let (bytes, overflow) = layout.count.multipliedReportingOverflow(by: layout.type.width)
      guard !overflow, Int(size) - layout.dataStart == bytes else {
        throw ModelFormatsError(
          .malformedFile,
          "npy: \(Int(size) - layout.dataStart) data bytes for \(layout.count) elements")
      }
    } catch let error as ModelFormatsError {
      throw error
    } catch {
      throw ModelFormatsError(.io, "npy: cannot read \(path): \(error.localizedDescription)")
    }
    switch layout.shape.count {
    case 1: (rows, columns) = (1, layout.shape[0])
    case 2: (rows, columns) = (layout.shape[0], layout.shape[1])
    default:
      throw ModelFormatsError(
        .unsupported, "npy: a \(layout.shape.count)-dimensional array is not a list of rows")
    }
  }

  /// Rows `first..<first + count`, as float32.
  ///
  /// - Throws: ``ModelFormatsError`` with code `io` when the file cannot be read.
  package func read(first: Int, count: Int) throws(ModelFormatsError) -> [[Float]] {
    let width = layout.type.width
    let rowBytes = columns * width
    let data: Data
    do {
      try handle.seek(toOffset: UInt64(layout.dataStart + first * rowBytes))
      data = try handle.read(upToCount: count * rowBytes) ?? Data()
    } catch {
      throw ModelFormatsError(.io, "npy: cannot read rows: \(error.localizedDescription)")
    }
    guard data.count == count * rowBytes else {
      throw ModelFormatsError(.malformedFile, "npy: the file ended inside row \(first)")
    }
    if layout.type.kind == .float, width == 4, !layout.type.isBigEndian {
      // float32, little-endian as this machine: the rows are the bytes.
      return (0..<count).map { row in
        [Float](unsafeUninitializedCapacity: columns) { buffer, initialized in
          let start = data.startIndex + row * rowBytes
          data.copyBytes(
            to: UnsafeMutableRawBufferPointer(buffer), from: start..<(start + rowBytes))
          initialized = columns
        }
      }
    }
    let bytes = [UInt8](data)
    return (0..<count).map { row in
      (0..<columns).map { column in
        layout.type.value(in: bytes, at: (row * columns + column) * width)
      }
    }
  }
}
