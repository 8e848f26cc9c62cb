/// The picture a model would see, as 8-bit RGB, together with what was done to produce it.
///
/// The same pixels as ``ModelInput/tensor`` before normalization, rounded to the nearest level;
/// useful to look at what the model sees (`vision-catalog preprocess --out input.png`).
package struct PreprocessedPicture: Sendable, Hashable {
  /// The upright RGB image of the model's input size.
  package let image: RasterImage
  /// The orientation, region, crop and placement that produced the image.
  package let provenance: PreprocessingProvenance
}
