/// The picture a model would see, as 8-bit RGB, together with what was done to produce it.
///
/// The same pixels as ``ModelInput/tensor`` before normalization, rounded to the nearest level;
/// useful to look at what the model sees (`vision-catalog preprocess --out input.png`).
package struct PreprocessedPicture: Sendable, Hashable {
  /// The upright RGB image of the model's input size.
  package let image: RasterImage
  /// The orientation, region, crop and placement that produced the image.
  package let provenance: PreprocessingProvenance

  /// Rounds a rendered canvas to 8-bit levels; the spec's normalization and channel order do
  /// not apply.
  ///
  /// - Parameters:
  ///   - canvas: RGB floats 0...255, `spec.width * spec.height` triples in row order, from
  ///     ``PreparationPlan/render(_:)``.
  ///   - plan: The plan the canvas was rendered with.
  init(canvas: [Float], plan: PreparationPlan) {
    // Truncating the clamped level plus one half rounds to nearest without calling libm.
    let levels = canvas.map { UInt8(min(max($0, 0), 255) + 0.5) }
    image = RasterImage(
      validatedWidth: plan.spec.width, height: plan.spec.height, format: .rgb, pixels: levels)
    provenance = plan.provenance
  }
}
