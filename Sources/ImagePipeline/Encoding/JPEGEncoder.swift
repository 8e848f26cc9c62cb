import CNative

/// Encodes a gray or RGB ``RasterImage`` as a JPEG through libjpeg-turbo.
///
/// The image's ``RasterImage/orientation`` is written as an EXIF APP1 segment when it is not
/// ``ImageOrientation/up`` (or ``exif`` replaces that block), so tests and benchmarks can make
/// oriented photos at run time.
package struct JPEGEncoder: Sendable, Hashable {
  /// The libjpeg quality, 1...100.
  package var quality: Int
  /// Whether to write a progressive JPEG (libjpeg's standard scan script).
  package var isProgressive: Bool
  /// Whether chroma is subsampled 2x2 (4:2:0, the common camera layout) rather than kept at full
  /// resolution (4:4:4).
  package var subsamplesChroma: Bool
  /// Whether to use arithmetic instead of Huffman entropy coding.
  package var usesArithmeticCoding: Bool
  /// A TIFF-structured EXIF block (starting with `II` or `MM`) to write verbatim in APP1 after
  /// `Exif\0\0`, instead of the block made from the image's orientation.
  package var exif: [UInt8]?

  /// Creates a JPEG encoder.
  ///
  /// - Parameters:
  ///   - quality: The libjpeg quality, 1...100; 90 by default.
  ///   - isProgressive: Whether to write a progressive JPEG; `false` by default.
  ///   - subsamplesChroma: Whether to subsample chroma 4:2:0; `true` by default.
  ///   - usesArithmeticCoding: Whether to use arithmetic coding; `false` by default.
  ///   - exif: An EXIF block to write instead of the image's orientation; `nil` by default.
  package init(
    quality: Int = 90, isProgressive: Bool = false, subsamplesChroma: Bool = true,
    usesArithmeticCoding: Bool = false, exif: [UInt8]? = nil
  ) {
    self.quality = quality
    self.isProgressive = isProgressive
    self.subsamplesChroma = subsamplesChroma
    self.usesArithmeticCoding = usesArithmeticCoding
    self.exif = exif
  }

  /// Encodes an image.
  ///
  /// - Parameter image: A ``PixelFormat/gray`` or ``PixelFormat/rgb`` image with sides up to
  ///   65,500 pixels.
  /// - Returns: The JPEG file.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` for an image with alpha, a
  ///   quality outside 1...100, sides over 65,500, an EXIF block over 65,527 bytes or pixels that
  ///   do not fill the image.
  package func encode(_ image: RasterImage) throws(ImageDecodingError) -> [UInt8] {
    guard image.format == .gray || image.format == .rgb else {
      throw ImageDecodingError(
        .invalidArgument, "JPEG has no alpha channel: convert the \(image.format) image first")
    }
    // libjpeg reads `height` rows of `width * channels` bytes from the base address it is given.
    try RasterImage.checkByteCount(
      image.pixels.count, width: image.width, height: image.height, format: image.format)
    guard let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height)
    else {
      throw ImageDecodingError(.invalidArgument, "image too large for JPEG")
    }
    let tiff =
      exif ?? (image.orientation == .up ? nil : EXIFWriter.tiff(orientation: image.orientation))
    let app1 = tiff.map(EXIFWriter.jpegAPP1(tiff:)) ?? []
    var options = cic_jpeg_encode_options(
      quality: Int32(clamping: quality), progressive: isProgressive ? 1 : 0,
      subsample_chroma: subsamplesChroma ? 1 : 0, arithmetic: usesArithmeticCoding ? 1 : 0)
    var output = cic_buffer()
    var message = CodecStatus.messageBuffer()
    let status = image.pixels.withUnsafeBufferPointer { pixels in
      app1.withUnsafeBufferPointer { app1Bytes in
        // Safety: both buffers outlive the call and libjpeg only reads them; `pixels` holds
        // `width * height * channels` bytes (checked above) and `app1Bytes` its count.
        cic_jpeg_encode(
          pixels.baseAddress, width, height, UInt32(image.format.channelCount), &options,
          app1Bytes.baseAddress, app1Bytes.count, &output, &message, message.count)
      }
    }
    defer { cic_buffer_free(&output) }
    try CodecStatus.check(status, message: message, operation: "JPEG encoding")
    return CodecBuffer.bytes(of: output)
  }
}
