/// What preprocessing did to an image: enough to map model results back to the photo.
public struct PreprocessingProvenance: Sendable, Hashable {
  /// The stored width of the source image.
  public let sourceWidth: Int
  /// The stored height of the source image.
  public let sourceHeight: Int
  /// The orientation that was applied (the caller's override, or the image's own).
  public let orientation: ImageOrientation
  /// The width of the upright image.
  public let orientedWidth: Int
  /// The height of the upright image.
  public let orientedHeight: Int
  /// The region of interest in upright pixels (top-left origin).
  public let regionOfInterest: PixelRect
  /// The pixels that reached the model input, in upright pixels (top-left origin).
  public let cropRect: PixelRect
  /// The crop, turn, scaled size and padding, relative to the region of interest.
  public let layout: CropAndScaleLayout
  /// The DCT-domain reduction the JPEG was decoded at; ``JPEGScale/full`` for an exact input.
  ///
  /// The rectangles above are in the stored image's full-size pixels whatever the reduction.
  public let jpegScale: JPEGScale
}
