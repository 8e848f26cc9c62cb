/// What an image's header says, read by ``ImageDecoder/inspect(_:)-(Data)`` without decoding
/// pixels.
package struct ImageInfo: Sendable, Hashable {
  /// The container format, recognized from magic bytes.
  package var format: ImageFormat
  /// The stored width in pixels, before ``orientation`` is applied (HEIF and AVIF: after the
  /// container's transforms, which decoding applies).
  package var width: Int
  /// The stored height in pixels, before ``orientation`` is applied (HEIF and AVIF: after the
  /// container's transforms).
  package var height: Int
  /// The channel layout that ``ImageDecoder/decode(_:)-(Data)`` produces for this image.
  package var pixelFormat: PixelFormat
  /// Bits per sample as stored in the file.
  ///
  /// PNG 1, 2, 4, 8 or 16; JPEG and WebP 8; HEIF and AVIF 8, 10 or 12. Decoding always gives
  /// 8 bits.
  package var bitDepth: Int
  /// The orientation still to apply to the decoded pixels: the EXIF orientation
  /// (``ImageOrientation/up`` when the file has none), or ``ImageOrientation/up`` for HEIF and
  /// AVIF, which decode upright.
  package var orientation: ImageOrientation
  /// The EXIF orientation tag as the file stores it, `nil` without one.
  ///
  /// For HEIF and AVIF it is descriptive only: a file whose tag disagrees with its container (a
  /// `heif-enc` file with EXIF 6 and no rotation box, say) shows the mismatch here.
  package var exifOrientation: ImageOrientation?
  /// A HEIF or AVIF container's rotation and mirroring, as the EXIF orientation that means the
  /// same.
  ///
  /// The `irot` and `imir` boxes, which decoding applies: ``ImageOrientation/right`` for an
  /// iPhone portrait photo. `nil` for other formats, or when the boxes cannot be read. Next to
  /// ``exifOrientation`` it shows a file whose tag and container disagree.
  package var containerOrientation: ImageOrientation?

  /// Creates image information.
  ///
  /// - Parameters:
  ///   - format: The container format.
  ///   - width: The stored width in pixels.
  ///   - height: The stored height in pixels.
  ///   - pixelFormat: The channel layout of the decoded image.
  ///   - bitDepth: Bits per sample as stored in the file.
  ///   - orientation: The orientation still to apply.
  ///   - exifOrientation: The EXIF tag as stored, `nil` for none.
  ///   - containerOrientation: A HEIF container's rotation and mirroring, `nil` for none.
  package init(
    format: ImageFormat, width: Int, height: Int, pixelFormat: PixelFormat, bitDepth: Int,
    orientation: ImageOrientation, exifOrientation: ImageOrientation? = nil,
    containerOrientation: ImageOrientation? = nil
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.bitDepth = bitDepth
    self.orientation = orientation
    self.exifOrientation = exifOrientation
    self.containerOrientation = containerOrientation
  }

  /// Whether the decoded image has an alpha channel (PNG alpha or `tRNS` transparency).
  package var hasAlpha: Bool { pixelFormat.hasAlpha }

  /// The width once ``orientation`` is applied.
  package var displayWidth: Int { orientation.swapsDimensions ? height : width }

  /// The height once ``orientation`` is applied.
  package var displayHeight: Int { orientation.swapsDimensions ? width : height }
}
