/// The picture a model would see, as 8-bit RGB, together with what was done to produce it.
///
/// The same pixels as ``ModelInput/tensor`` before normalization, rounded to the nearest level;
/// useful to look at what the model sees (`vision-catalog preprocess --out input.png`).
public struct PreprocessedPicture: Sendable, Hashable {
  /// The upright RGB image of the model's input size.
  public let image: RasterImage
  /// The orientation, region, crop and placement that produced the image.
  public let provenance: PreprocessingProvenance

  /// Renders decoded pixels as `plan` says, rounding levels to the nearest integer; the spec's
  /// normalization and channel order do not apply.
  ///
  /// - Parameters:
  ///   - image: The photo decoded at the plan's reduction.
  ///   - plan: The plan for that photo.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when `image` is not the size the
  ///   plan expects.
  public init(rendering image: RasterImage, as plan: PreparationPlan) throws(ImageDecodingError) {
    let canvas = try plan.render(image)
    // Truncating the clamped level plus one half rounds to nearest without calling libm.
    let levels = canvas.map { UInt8(min(max($0, 0), 255) + 0.5) }
    self.image = RasterImage(
      validatedWidth: plan.spec.width, height: plan.spec.height, format: .rgb, pixels: levels)
    provenance = plan.provenance
  }
}
