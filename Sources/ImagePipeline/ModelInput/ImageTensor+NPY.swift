extension ImageTensor {
  /// Encodes the tensor as a NumPy `.npy` file: format version 1.0, little-endian float32 (`<f4`),
  /// C order, the header padded to a multiple of 64 bytes as NumPy writes it.
  ///
  /// - Returns: The bytes of the file, readable with `numpy.load`.
  public func npyBytes() -> [UInt8] {
    let extents = shape.map(String.init).joined(separator: ", ")
    var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(extents)), }"
    // Magic (6) + version (2) + length (2) + header + newline is a multiple of 64.
    let unpadded = 10 + header.utf8.count + 1
    header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
    let headerLength = header.utf8.count
    var bytes: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0]
    bytes.reserveCapacity(10 + headerLength + 4 * values.count)
    bytes.append(UInt8(truncatingIfNeeded: headerLength))
    bytes.append(UInt8(truncatingIfNeeded: headerLength >> 8))
    bytes.append(contentsOf: header.utf8)
    for value in values {
      let bits = value.bitPattern
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
    }
    return bytes
  }
}
