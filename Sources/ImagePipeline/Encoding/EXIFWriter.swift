/// Builds the smallest EXIF block that records an orientation: a little-endian TIFF header and
/// an IFD0 holding the one Orientation (0x0112) entry.
enum EXIFWriter {
  /// The TIFF bytes, starting with `II`.
  ///
  /// - Parameter orientation: The orientation to record.
  /// - Returns: 26 bytes: header, one-entry IFD0, no next IFD.
  static func tiff(orientation: ImageOrientation) -> [UInt8] {
    [
      0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,
      0x01, 0x00,
      0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, orientation.rawValue, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00,
    ]
  }

  /// The APP1 segment payload of a JPEG: `Exif\0\0` followed by the TIFF bytes.
  ///
  /// - Parameter tiff: A TIFF-structured EXIF block.
  /// - Returns: The payload to write after the APP1 marker and length.
  static func jpegAPP1(tiff: [UInt8]) -> [UInt8] {
    [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] + tiff
  }
}
