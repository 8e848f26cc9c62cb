import CNative
public import Foundation

/// Decodes PNG, JPEG, WebP, HEIF (HEIC) and AVIF files into 8-bit ``RasterImage`` values, with
/// the orientation still to apply.
///
/// The format is recognized from magic bytes, never from a file name. PNG of every color type
/// and bit depth (palette, `tRNS`, Adam7, 16-bit) decodes through libpng, the common 8-bit file
/// through a libdeflate fast path with libpng's results; JPEG (baseline,
/// progressive, arithmetic-coded, grayscale, CMYK and YCCK) through libjpeg-turbo; WebP (lossy,
/// lossless, alpha; an animation gives its first frame) through libwebp; HEIF and AVIF (the primary
/// image, grids, alpha, 10 and 12 bits reduced to 8) through libheif, which applies the
/// container's crop, rotation and mirroring, so those images come out upright with
/// ``RasterImage/orientation`` ``ImageOrientation/up`` (their EXIF tag is descriptive only).
/// The output
/// keeps the file's channels: gray stays ``PixelFormat/gray``, PNG transparency becomes alpha,
/// 16-bit samples are rounded to 8 bits, low bit depths are scaled up, and gamma is left as
/// stored. The pixels are not rotated: ``RasterImage/orientation`` says how to turn them.
///
/// A decoder is a value; it is safe to use from many tasks at once.
///
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url)
/// print(image.width, image.height, image.format, image.orientation)
/// ```
public struct ImageDecoder: Sendable {
  /// The limits and leniency applied to every decode.
  public var options: DecodingOptions

  /// Creates a decoder.
  ///
  /// - Parameter options: Limits and leniency; the defaults suit untrusted input.
  public init(options: DecodingOptions = DecodingOptions()) {
    self.options = options
  }

  /// Decodes an image held in memory.
  ///
  /// - Parameter data: The complete image file.
  /// - Returns: The decoded image with its EXIF orientation (not yet applied).
  /// - Throws: ``ImageDecodingError``: `unknownFormat` for bytes of no format ``ImageFormat`` lists,
  ///   `corrupt`, `truncated`, `unsupported` (12-bit or lossless JPEG) or `limitExceeded` (more
  ///   pixels than ``DecodingOptions/maximumPixelCount`` or a larger pixel buffer than
  ///   ``DecodingOptions/maximumDecodedByteCount``), with the codec's message.
  public func decode(_ data: Data) throws(ImageDecodingError) -> RasterImage {
    try data.withUnsafeBytes { bytes in
      // Safety: the buffer is only read by the codec and the EXIF walk during this call.
      Result { () throws(ImageDecodingError) in try decode(bytes: bytes) }
    }.get()
  }

  /// Decodes an image held in a byte array.
  ///
  /// - Parameter bytes: The complete image file.
  /// - Returns: The decoded image with its EXIF orientation (not yet applied).
  /// - Throws: ``ImageDecodingError`` as ``decode(_:)-(Data)`` does.
  public func decode(_ bytes: [UInt8]) throws(ImageDecodingError) -> RasterImage {
    try bytes.withUnsafeBytes { raw in
      // Safety: the buffer is only read by the codec and the EXIF walk during this call.
      Result { () throws(ImageDecodingError) in try decode(bytes: raw) }
    }.get()
  }

  /// Decodes the first rows of a JPEG (every row of a PNG); the rows below stay zero.
  ///
  /// For callers that know which rows they will read, such as
  /// ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)``.
  func decode(_ data: Data, firstRows rowLimit: Int) throws(ImageDecodingError) -> RasterImage {
    try data.withUnsafeBytes { bytes in
      // Safety: the buffer is only read by the codec and the EXIF walk during this call.
      Result { () throws(ImageDecodingError) in
        try decode(bytes: bytes, rowLimit: UInt32(clamping: max(rowLimit, 1)))
      }
    }.get()
  }

  /// Decodes a file whose header ``inspect(_:)-(Data)`` has already read, without parsing the
  /// header or the EXIF metadata again: the size, channels and orientation come from `info`.
  ///
  /// - Parameters:
  ///   - data: The file `info` was read from.
  ///   - info: Its header.
  ///   - scale: The DCT-domain reduction of a JPEG, in place of ``DecodingOptions/jpegScale``;
  ///     a preparation plan passes its own.
  ///   - rowLimit: Decode only the first rows of a JPEG (the rest stay zero); `nil` decodes all.
  /// - Returns: The image, at `scale` for a JPEG.
  /// - Throws: ``ImageDecodingError`` as ``decode(_:)-(Data)`` does, or `corrupt` when the codec
  ///   reports another size or channel count than `info`.
  package func decode(
    _ data: Data, header info: ImageInfo, scale: JPEGScale, firstRows rowLimit: Int? = nil
  ) throws(ImageDecodingError) -> RasterImage {
    try data.withUnsafeBytes { bytes in
      // Safety: the buffer is only read by the codec during this call.
      Result { () throws(ImageDecodingError) in
        try decode(
          bytes: bytes, rowLimit: rowLimit.map { UInt32(clamping: max($0, 1)) } ?? 0, known: info,
          scale: scale)
      }
    }.get()
  }

  /// Decodes a HEIF or AVIF file whose header ``inspect(_:)-(Data)`` has already read, leaving
  /// out the container's rotation and mirroring: the image keeps its stored pixels and its
  /// ``RasterImage/orientation`` carries the transforms, as a JPEG's carries its EXIF tag, so a
  /// resampler that turns while it scales saves libheif's pass over the whole image.
  ///
  /// - Parameters:
  ///   - data: The file `info` was read from.
  ///   - info: Its header.
  /// - Returns: The stored image, or `nil` for other formats and for a file this does not suit:
  ///   one with a clean aperture (`clap`, which would be left out too) or whose boxes cannot
  ///   be read.
  /// - Throws: ``ImageDecodingError`` as ``decode(_:header:scale:firstRows:)`` does.
  func decodeStored(_ data: Data, header info: ImageInfo) throws(ImageDecodingError)
    -> RasterImage?
  {
    guard info.format.appliesContainerTransforms else { return nil }
    return try data.withUnsafeBytes { bytes in
      // Safety: the buffer is only read by the container walk and the codec during this call.
      Result { () throws(ImageDecodingError) -> RasterImage? in
        guard let container = HEIFContainer(bytes: bytes), !container.hasCleanAperture,
          let stored = container.storedSize
        else { return nil }
        return try decode(bytes: bytes, known: info, scale: .full, stored: (container, stored))
      }
    }.get()
  }

  /// Reads and decodes an image file.
  ///
  /// - Parameter url: A file URL.
  /// - Returns: The decoded image with its EXIF orientation (not yet applied).
  /// - Throws: ``ImageDecodingError`` with code `io` when the file cannot be read,
  ///   `limitExceeded` when it is longer than ``DecodingOptions/maximumFileByteCount``, otherwise
  ///   as ``decode(_:)-(Data)`` does.
  public func decode(contentsOf url: URL) throws(ImageDecodingError) -> RasterImage {
    try decode(read(url))
  }

  /// Reads an image's header: format, size, channels and orientation, without decoding pixels.
  ///
  /// The pixel-count limit is not applied, so a caller can learn the size of an image it would
  /// refuse to decode.
  ///
  /// - Parameter data: The image file (the header and, for orientation, the metadata
  ///   segments must be present).
  /// - Returns: What the header says.
  /// - Throws: ``ImageDecodingError`` when the format is unknown or the header is damaged or
  ///   unsupported.
  package func inspect(_ data: Data) throws(ImageDecodingError) -> ImageInfo {
    try data.withUnsafeBytes { bytes in
      // Safety: the buffer is only read by the codec and the EXIF walk during this call.
      Result { () throws(ImageDecodingError) in try inspect(bytes: bytes) }
    }.get()
  }

  /// Reads an image's header from a byte array, without decoding pixels.
  ///
  /// - Parameter bytes: The image file.
  /// - Returns: What the header says.
  /// - Throws: ``ImageDecodingError`` as ``inspect(_:)-(Data)`` does.
  package func inspect(_ bytes: [UInt8]) throws(ImageDecodingError) -> ImageInfo {
    try bytes.withUnsafeBytes { raw in
      // Safety: the buffer is only read by the codec and the EXIF walk during this call.
      Result { () throws(ImageDecodingError) in try inspect(bytes: raw) }
    }.get()
  }

  /// Reads an image file's header, without decoding pixels.
  ///
  /// - Parameter url: A file URL.
  /// - Returns: What the header says.
  /// - Throws: ``ImageDecodingError`` with code `io` when the file cannot be read,
  ///   `limitExceeded` when it is longer than ``DecodingOptions/maximumFileByteCount``, otherwise
  ///   as ``inspect(_:)-(Data)`` does.
  package func inspect(contentsOf url: URL) throws(ImageDecodingError) -> ImageInfo {
    try inspect(read(url))
  }

  /// Reads an image file's bytes under ``DecodingOptions/maximumFileByteCount``, without decoding.
  ///
  /// At most one byte past the limit is read, so a huge file (or a device that never ends) is
  /// refused without being read into memory. Useful to inspect and then decode one read.
  ///
  /// - Parameter url: A file URL.
  /// - Returns: The file's bytes.
  /// - Throws: ``ImageDecodingError`` with code `io` when the file cannot be read or
  ///   `limitExceeded` when it is longer than the limit.
  public func read(contentsOf url: URL) throws(ImageDecodingError) -> Data {
    try read(url)
  }

  private func read(_ url: URL) throws(ImageDecodingError) -> Data {
    let limit = max(options.maximumFileByteCount, 0)
    let data: Data
    do {
      let handle = try FileHandle(forReadingFrom: url)
      defer { try? handle.close() }
      data = try handle.read(upToCount: limit == Int.max ? limit : limit + 1) ?? Data()
    } catch {
      throw ImageDecodingError(.io, "cannot read \(url.path): \(error.localizedDescription)")
    }
    guard data.count <= limit else {
      throw ImageDecodingError(
        .limitExceeded, "\(url.path) is larger than the file limit of \(limit) bytes")
    }
    return data
  }

  /// The C options; `limited` is false for header inspection, which reports the stored size
  /// whatever the limit or scale.
  ///
  /// A `nil` scale means ``DecodingOptions/jpegScale``.
  private func codecOptions(
    limited: Bool, rowLimit: UInt32 = 0, scale: JPEGScale? = nil, untransformed: Bool = false
  ) -> cic_decode_options {
    cic_decode_options(
      max_pixels: limited ? UInt64(clamping: max(options.maximumPixelCount, 1)) : 0,
      allow_truncated: options.allowsTruncatedJPEG ? 1 : 0,
      max_scans: UInt32(DecodingOptions.maximumJPEGScanCount),
      scale_denominator: limited ? UInt32((scale ?? options.jpegScale).denominator) : 1,
      max_rows: rowLimit, threads: UInt32(clamping: max(options.threadCount, 1)),
      untransformed: untransformed ? 1 : 0)
  }

  private static func format(of bytes: UnsafeRawBufferPointer) throws(ImageDecodingError)
    -> ImageFormat
  {
    guard !bytes.isEmpty else {
      throw ImageDecodingError(.unknownFormat, "no data: an empty buffer is not an image")
    }
    if let format = ImageFormat.sniff(bytes) { return format }
    // A damaged PNG signature (the classic CR/LF conversion) still deserves libpng's diagnosis.
    if bytes.count >= 4, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 { return .png }
    let head = bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: " ")
    throw ImageDecodingError(
      .unknownFormat,
      "not a PNG, JPEG, WebP, HEIF or AVIF file (the data starts with bytes \(head))")
  }

  /// The codec's header, with a HEIF or AVIF file's container boxes (`nil` for other formats).
  ///
  /// libheif 1.15 reports some turned grids at their stored size and decodes them turned; the
  /// container's boxes give such a header its upright size, so the pixel buffer and the image
  /// get the size decoding produces.
  private func header(of bytes: UnsafeRawBufferPointer, format: ImageFormat, limited: Bool)
    throws(ImageDecodingError) -> (info: cic_image_info, container: HEIFContainer?)
  {
    var codecOptions = codecOptions(limited: limited)
    var info = cic_image_info()
    var message = CodecStatus.messageBuffer()
    let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    let status =
      switch format {
      case .png:
        cic_png_inspect(base, bytes.count, &codecOptions, &info, &message, message.count)
      case .jpeg:
        cic_jpeg_inspect(base, bytes.count, &codecOptions, &info, &message, message.count)
      case .webp:
        cic_webp_inspect(base, bytes.count, &codecOptions, &info, &message, message.count)
      case .heif, .avif:
        cic_heif_inspect(base, bytes.count, &codecOptions, &info, &message, message.count)
      }
    try CodecStatus.check(status, message: message, operation: "\(format.displayName) decoding")
    guard format.appliesContainerTransforms else { return (info, nil) }
    let container = HEIFContainer(bytes: bytes)
    if let container, let stored = container.storedSize,
      stored == (Int(info.width), Int(info.height)), container.orientation.swapsDimensions
    {
      swap(&info.width, &info.height)
    }
    return (info, container)
  }

  // Both helpers below run inside a `withUnsafeBytes` scope and never keep `bytes`.
  private func inspect(bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> ImageInfo {
    let format = try Self.format(of: bytes)
    let (info, container) = try header(of: bytes, format: format, limited: false)
    let exif = Self.exifOrientation(in: bytes, format: format)
    return ImageInfo(
      format: format, width: Int(info.width), height: Int(info.height),
      pixelFormat: try Self.pixelFormat(channels: info.channels), bitDepth: Int(info.bit_depth),
      orientation: format.appliesContainerTransforms ? .up : exif ?? .up, exifOrientation: exif,
      containerOrientation: container?.orientation)
  }

  /// With `stored`, a HEIF file decodes without its container transforms, at the container's
  /// stored size, and the image's orientation is the container's.
  ///
  /// A JPEG decodes at `scale`, or at ``DecodingOptions/jpegScale`` when it is `nil`.
  private func decode(
    bytes: UnsafeRawBufferPointer, rowLimit: UInt32 = 0, known: ImageInfo? = nil,
    scale requested: JPEGScale? = nil,
    stored: (container: HEIFContainer, size: (width: Int, height: Int))? = nil
  ) throws(ImageDecodingError) -> RasterImage {
    let jpegScale = requested ?? options.jpegScale
    let format: ImageFormat
    let pixelFormat: PixelFormat
    let width: Int
    let height: Int
    if let known {
      try checkPixelLimit(known)
      format = known.format
      pixelFormat = known.pixelFormat
      let scale = format == .jpeg ? jpegScale : .full
      (width, height) =
        stored?.size ?? scale.scaledSize(width: known.width, height: known.height)
    } else {
      format = try Self.format(of: bytes)
      let info = try header(of: bytes, format: format, limited: true).info
      pixelFormat = try Self.pixelFormat(channels: info.channels)
      width = Int(info.width)
      height = Int(info.height)
    }
    let byteCount = RasterImage.byteCount(width: width, height: height, format: pixelFormat)
    guard let count = byteCount, count <= options.maximumDecodedByteCount else {
      throw ImageDecodingError(
        .limitExceeded,
        "\(width)x\(height) \(pixelFormat) decodes to \(byteCount.map(String.init) ?? "too many") "
          + "bytes, more than the limit of \(options.maximumDecodedByteCount) bytes")
    }
    var codecOptions = codecOptions(
      limited: true, rowLimit: rowLimit, scale: jpegScale, untransformed: stored != nil)
    var decodedInfo = cic_image_info()
    var message = CodecStatus.messageBuffer()
    var status = CIC_STATUS_OK
    let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      // Safety: `count` is both the size passed to the codec and the capacity asked for (the
      // buffer may be larger, never smaller); the codec refuses a size that does not match the
      // header and otherwise writes exactly `count` bytes or fails; only a success marks the
      // bytes initialized.
      precondition(buffer.count >= count, "pixel buffer smaller than requested")
      status =
        switch format {
        case .png:
          cic_png_decode(
            base, bytes.count, &codecOptions, buffer.baseAddress, count, &decodedInfo, &message,
            message.count)
        case .jpeg:
          cic_jpeg_decode(
            base, bytes.count, &codecOptions, buffer.baseAddress, count, &decodedInfo, &message,
            message.count)
        case .webp:
          cic_webp_decode(
            base, bytes.count, &codecOptions, buffer.baseAddress, count, &decodedInfo, &message,
            message.count)
        case .heif, .avif:
          cic_heif_decode(
            base, bytes.count, &codecOptions, buffer.baseAddress, count, &decodedInfo, &message,
            message.count)
        }
      initialized = status == CIC_STATUS_OK ? count : 0
    }
    try CodecStatus.check(status, message: message, operation: "\(format.displayName) decoding")
    // The buffer was sized from the header; a decode that reports another geometry would make
    // an image whose size does not describe its pixels.
    guard
      Int(decodedInfo.width) == width, Int(decodedInfo.height) == height,
      (try? Self.pixelFormat(channels: decodedInfo.channels)) == pixelFormat
    else {
      throw ImageDecodingError(
        .corrupt,
        "the \(format.displayName) header promised \(width)x\(height) \(pixelFormat) but "
          + "decoding gave \(decodedInfo.width)x\(decodedInfo.height) with "
          + "\(decodedInfo.channels) channels")
    }
    return try RasterImage(
      width: width, height: height, format: pixelFormat, pixels: pixels,
      orientation: stored?.container.orientation ?? known?.orientation
        ?? Self.orientation(in: bytes, format: format))
  }

  /// Refuses a header whose pixel count exceeds ``DecodingOptions/maximumPixelCount``, as the
  /// codec would before allocating.
  package func checkPixelLimit(_ info: ImageInfo) throws(ImageDecodingError) {
    let (pixels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
    guard !overflow, pixels <= max(options.maximumPixelCount, 1) else {
      throw ImageDecodingError(
        .limitExceeded,
        "\(info.width)x\(info.height) is more than the limit of \(options.maximumPixelCount) "
          + "pixels")
    }
  }

  /// The orientation to apply: the EXIF tag's, or ``ImageOrientation/up`` for a format whose
  /// decoder applies the container's transforms.
  private static func orientation(in bytes: UnsafeRawBufferPointer, format: ImageFormat)
    -> ImageOrientation
  {
    format.appliesContainerTransforms ? .up : exifOrientation(in: bytes, format: format) ?? .up
  }

  /// The EXIF orientation tag as stored, or `nil` when there is none.
  private static func exifOrientation(in bytes: UnsafeRawBufferPointer, format: ImageFormat)
    -> ImageOrientation?
  {
    EXIFLocator.tiff(in: bytes, format: format).flatMap { EXIFReader(tiff: $0).orientation() }
  }

  private static func pixelFormat(channels: UInt32) throws(ImageDecodingError) -> PixelFormat {
    switch channels {
    case 1: .gray
    case 2: .grayAlpha
    case 3: .rgb
    case 4: .rgba
    default:
      throw ImageDecodingError(.corrupt, "the codec reported \(channels) output channels")
    }
  }
}

extension ImageFormat {
  /// The name used in messages.
  var displayName: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    case .webp: "WebP"
    case .heif: "HEIF"
    case .avif: "AVIF"
    }
  }
}
