import CNative

/// Encodes a ``RasterImage`` as an 8-bit PNG through libpng, keeping its channels.
///
/// Gray, gray with alpha, RGB and RGBA images become PNG color types 0, 4, 2 and 6. An image
/// whose ``RasterImage/orientation`` is not ``ImageOrientation/up`` gets an `eXIf` chunk that
/// records it, so decoding the file gives back the same image.
package struct PNGEncoder: Sendable, Hashable {
  /// The zlib compression level, 0 (none, fastest) to 9 (smallest).
  package var compressionLevel: Int

  /// Creates a PNG encoder.
  ///
  /// - Parameter compressionLevel: The zlib level, 0...9; 6 (zlib's default) by default.
  package init(compressionLevel: Int = 6) {
    self.compressionLevel = compressionLevel
  }

  /// Encodes an image.
  ///
  /// - Parameter image: The image to encode.
  /// - Returns: The PNG file.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` for a compression level
  ///   outside 0...9, an image too large for PNG or pixels that do not fill the image,
  ///   `limitExceeded` when memory runs out.
  package func encode(_ image: RasterImage) throws(ImageDecodingError) -> [UInt8] {
    // libpng reads `height` rows of `width * channels` bytes from the base address it is given.
    try RasterImage.checkByteCount(
      image.pixels.count, width: image.width, height: image.height, format: image.format)
    guard let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height)
    else {
      throw ImageDecodingError(.invalidArgument, "image too large for PNG")
    }
    let exif = image.orientation == .up ? [] : EXIFWriter.tiff(orientation: image.orientation)
    var output = cic_buffer()
    var message = CodecStatus.messageBuffer()
    let status = image.pixels.withUnsafeBufferPointer { pixels in
      exif.withUnsafeBufferPointer { exifBytes in
        // Safety: both buffers outlive the call and libpng only reads them; `pixels` holds
        // `width * height * channels` bytes (checked above) and `exifBytes` its count.
        cic_png_encode(
          pixels.baseAddress, width, height, UInt32(image.format.channelCount),
          Int32(clamping: compressionLevel), exifBytes.baseAddress, exifBytes.count, &output,
          &message, message.count)
      }
    }
    defer { cic_buffer_free(&output) }
    try CodecStatus.check(status, message: message, operation: "PNG encoding")
    return CodecBuffer.bytes(of: output)
  }
}
