package import NeuralCore

/// Reads and writes NumPy `.npy` arrays as `Tensor` values.
///
/// Reading accepts format versions 1.0, 2.0 and 3.0 in C order. `float32` (`<f4`) loads exactly;
/// the other numeric types (`f2`, `f8`, signed and unsigned integers of 1 to 8 bytes, `b1`), in
/// either byte order, are converted to float32. Object, string, complex and structured arrays and
/// `fortran_order: True` are refused with `unsupported`.
/// Writing produces format 1.0, `<f4`, C order, header padded to 64 bytes as NumPy does.
package enum NPYFile {
  /// The largest header accepted; NumPy itself refuses headers above 10,000 bytes by default.
  static let maximumHeaderBytes = 65_536
  static let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]

  /// Reads a `.npy` file.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - limits: Bounds on file size, rank and element count.
  /// - Returns: The array as a float32 tensor of the same shape.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for a
  ///   damaged header or short data, `unsupported` for a type or order this reader refuses,
  ///   `limitExceeded` past a limit.
  package static func read(contentsOfFile path: String, limits: ImportLimits = .default)
    throws(ModelFormatsError) -> Tensor
  {
    try decode(FileBytes.read(path: path, maximumBytes: limits.maximumFileBytes), limits: limits)
  }

  /// Decodes the bytes of a `.npy` file.
  ///
  /// - Parameters:
  ///   - bytes: The whole file.
  ///   - limits: Bounds on size, rank and element count.
  /// - Returns: The array as a float32 tensor of the same shape.
  /// - Throws: ``ModelFormatsError``: `malformedFile`, `unsupported` or `limitExceeded` as for
  ///   ``read(contentsOfFile:limits:)``.
  package static func decode(_ bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError) -> Tensor
  {
    guard bytes.count <= limits.maximumFileBytes else {
      throw ModelFormatsError(
        .limitExceeded, "npy: \(bytes.count) bytes, above the limit \(limits.maximumFileBytes)")
    }
    let layout = try Layout(prefix: bytes, limits: limits)
    let (byteCount, overflow) = layout.count.multipliedReportingOverflow(by: layout.type.width)
    guard !overflow, bytes.count - layout.dataStart == byteCount else {
      throw ModelFormatsError(
        .malformedFile,
        "npy: \(bytes.count - layout.dataStart) data bytes for \(layout.count) elements of "
          + "'\(layout.descriptor)'")
    }
    let (count, type, dataStart) = (layout.count, layout.type, layout.dataStart)
    var scalars = [Float](repeating: 0, count: count)
    for index in 0..<count {
      scalars[index] = type.value(in: bytes, at: dataStart + index * type.width)
    }
    return try Tensor(fileShape: layout.shape, scalars: scalars)
  }

  /// Encodes a tensor as a `.npy` file: format 1.0, `<f4`, C order.
  ///
  /// - Parameter tensor: The tensor to encode.
  /// - Returns: The file's bytes.
  package static func encode(_ tensor: Tensor) -> [UInt8] {
    let dimensions = tensor.shape.map(String.init)
    let shape =
      dimensions.count == 1 ? "(\(dimensions[0]),)" : "(\(dimensions.joined(separator: ", ")))"
    var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shape), }"
    // NumPy pads with spaces so the data starts on a 64-byte boundary, ending in a newline.
    let unpadded = magic.count + 4 + header.utf8.count + 1
    header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
    let headerLength = header.utf8.count
    var bytes = magic + [1, 0, UInt8(headerLength & 0xFF), UInt8(headerLength >> 8)]
    bytes += Array(header.utf8)
    bytes.reserveCapacity(bytes.count + 4 * tensor.count)
    for scalar in tensor.scalars {
      let bits = scalar.bitPattern
      bytes += [
        UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8((bits >> 16) & 0xFF),
        UInt8(bits >> 24),
      ]
    }
    return bytes
  }

  /// Writes a tensor to a `.npy` file: format 1.0, `<f4`, C order.
  ///
  /// - Parameters:
  ///   - tensor: The tensor to write.
  ///   - path: The file's path; an existing file is replaced.
  /// - Throws: ``ModelFormatsError`` with code `io` when the file cannot be written.
  package static func write(_ tensor: Tensor, toFile path: String) throws(ModelFormatsError) {
    try FileBytes.write(encode(tensor), path: path)
  }

  /// What a file's header says: the shape, the element type and where the data starts.
  struct Layout {
    let shape: [Int]
    let descriptor: String
    let type: ElementType
    let count: Int
    let dataStart: Int

    /// Parses the header at the start of `prefix` (the whole file, or at least its header).
    init(prefix bytes: [UInt8], limits: ImportLimits) throws(ModelFormatsError) {
      guard bytes.count >= 10, Array(bytes[0..<6]) == NPYFile.magic else {
        throw ModelFormatsError(.malformedFile, "npy: missing the \\x93NUMPY magic string")
      }
      let major = bytes[6]
      let headerLength: Int
      let headerStart: Int
      switch major {
      case 1:
        headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        headerStart = 10
      case 2, 3:
        guard bytes.count >= 12 else {
          throw ModelFormatsError(.malformedFile, "npy: truncated header length")
        }
        headerLength = (0..<4).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
        headerStart = 12
      default:
        throw ModelFormatsError(.unsupported, "npy: format version \(major).\(bytes[7])")
      }
      guard headerLength <= NPYFile.maximumHeaderBytes, headerLength <= bytes.count - headerStart
      else {
        throw ModelFormatsError(
          .malformedFile, "npy: header of \(headerLength) bytes does not fit the file")
      }
      let headerText = String(
        decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
      let header = try NPYHeader(parsing: headerText)
      guard !header.isFortranOrder else {
        throw ModelFormatsError(.unsupported, "npy: fortran_order arrays are not supported")
      }
      shape = header.shape
      descriptor = header.descriptor
      type = try ElementType(descriptor: header.descriptor)
      count = try limits.checkedElementCount(of: header.shape, name: "npy array")
      dataStart = headerStart + headerLength
    }
  }

  /// An element type this reader converts, parsed from a descriptor such as `<f4`.
  struct ElementType {
    enum Kind {
      case float
      case signed
      case unsigned
      case bool
    }
    let kind: Kind
    let width: Int
    let isBigEndian: Bool

    init(descriptor: String) throws(ModelFormatsError) {
      let characters = Array(descriptor)
      guard characters.count >= 3, let width = Int(String(characters[2...])) else {
        throw ModelFormatsError(.unsupported, "npy: element type '\(descriptor)'")
      }
      let order = characters[0]
      guard order == "<" || order == ">" || order == "|" || order == "=" else {
        throw ModelFormatsError(.unsupported, "npy: element type '\(descriptor)'")
      }
      switch (characters[1], width) {
      case ("f", 2), ("f", 4), ("f", 8): kind = .float
      case ("i", 1), ("i", 2), ("i", 4), ("i", 8): kind = .signed
      case ("u", 1), ("u", 2), ("u", 4), ("u", 8): kind = .unsigned
      case ("b", 1): kind = .bool
      default:
        throw ModelFormatsError(.unsupported, "npy: element type '\(descriptor)' is not numeric")
      }
      self.width = width
      isBigEndian = order == ">"
    }

    func value(in bytes: [UInt8], at offset: Int) -> Float {
      var bits: UInt64 = 0
      for byte in 0..<width {
        let shift = isBigEndian ? 8 * (width - 1 - byte) : 8 * byte
        bits |= UInt64(bytes[offset + byte]) << UInt64(shift)
      }
      switch kind {
      case .bool: return bits == 0 ? 0 : 1
      case .unsigned: return Float(bits)
      case .signed:
        let unused = UInt64(64 - 8 * width)
        return Float(Int64(bitPattern: bits << unused) >> Int64(unused))
      case .float:
        switch width {
        case 2: return MiniFloat.decode(UInt32(bits), as: .float16)
        case 4: return Float(bitPattern: UInt32(bits))
        default: return Float(Double(bitPattern: bits))
        }
      }
    }
  }
}
