/// What preprocessing did to an image: enough to map model results back to the photo.
package struct PreprocessingProvenance: Sendable, Hashable {
  /// The stored width of the source image.
  package let sourceWidth: Int
  /// The stored height of the source image.
  package let sourceHeight: Int
  /// The orientation that was applied (the caller's override, or the image's own).
  package let orientation: ImageOrientation
  /// The width of the upright image.
  package let orientedWidth: Int
  /// The height of the upright image.
  package let orientedHeight: Int
  /// The region of interest in upright pixels (top-left origin).
  package let regionOfInterest: PixelRect
  /// The pixels that reached the model input, in upright pixels (top-left origin).
  package let cropRect: PixelRect
  /// The crop, turn, scaled size and padding, relative to the region of interest.
  package let layout: CropAndScaleLayout
  /// The DCT-domain reduction the JPEG was decoded at; ``JPEGScale/full`` for an exact input.
  ///
  /// The rectangles above are in the stored image's full-size pixels whatever the reduction.
  package let jpegScale: JPEGScale
}
