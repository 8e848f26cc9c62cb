public import Foundation

/// A float32 array read from a NumPy `.npy` file.
public struct NPYArray: Sendable {
  /// The extent of each axis.
  public let shape: [Int]
  /// The values in C order.
  public let values: [Float]
}

/// Why an `.npy` file could not be read.
public struct NPYTestReaderError: Error, CustomStringConvertible {
  /// What was wrong.
  public let description: String
}

/// Reads the subset of NumPy's `.npy` format that reference tensors use: versions 1.0 to 3.0,
/// little-endian float32 (`<f4`), C order.
public enum NPYTestReader {
  /// Reads a file.
  ///
  /// - Parameter url: The `.npy` file.
  /// - Returns: The shape and values.
  /// - Throws: `NPYTestReaderError` for anything outside the subset, or the file system's error.
  public static func read(_ url: URL) throws -> NPYArray {
    try parse([UInt8](Data(contentsOf: url)))
  }

  /// Parses the bytes of an `.npy` file.
  ///
  /// - Parameter bytes: The whole file.
  /// - Returns: The shape and values.
  /// - Throws: `NPYTestReaderError` for anything outside the subset.
  public static func parse(_ bytes: [UInt8]) throws -> NPYArray {
    let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]
    guard bytes.count >= 10, Array(bytes[0..<6]) == magic else {
      throw NPYTestReaderError(description: "not an .npy file")
    }
    let major = bytes[6]
    let headerLength: Int
    let headerStart: Int
    switch major {
    case 1:
      headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
      headerStart = 10
    case 2, 3:
      guard bytes.count >= 12 else { throw NPYTestReaderError(description: "short header") }
      headerLength = (0..<4).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
      headerStart = 12
    default:
      throw NPYTestReaderError(description: "unsupported .npy version \(major)")
    }
    let dataStart = headerStart + headerLength
    guard bytes.count >= dataStart,
      let header = String(bytes: bytes[headerStart..<dataStart], encoding: .utf8)
    else { throw NPYTestReaderError(description: "unreadable header") }
    guard header.contains("'descr': '<f4'"), header.contains("'fortran_order': False") else {
      throw NPYTestReaderError(description: "only little-endian float32 in C order: \(header)")
    }
    guard let open = header.range(of: "'shape': ("),
      let close = header[open.upperBound...].firstIndex(of: ")")
    else { throw NPYTestReaderError(description: "no shape in \(header)") }
    let shape = try header[open.upperBound..<close].split(separator: ",").map { part in
      let text = part.trimmingCharacters(in: .whitespaces)
      guard let extent = Int(text) else {
        throw NPYTestReaderError(description: "bad extent '\(text)'")
      }
      return extent
    }
    let count = shape.reduce(1, *)
    guard bytes.count - dataStart == count * 4 else {
      throw NPYTestReaderError(description: "\(bytes.count - dataStart) data bytes for \(shape)")
    }
    let values = (0..<count).map { index in
      let offset = dataStart + index * 4
      let bits = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
      return Float(bitPattern: bits)
    }
    return NPYArray(shape: shape, values: values)
  }
}
