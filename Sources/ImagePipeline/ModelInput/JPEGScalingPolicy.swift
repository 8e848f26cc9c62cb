/// Whether a JPEG may be decoded at a DCT-domain reduction when only a small model input is
/// wanted from it.
///
/// ``automatic`` decodes a large photo at 1/2, 1/4 or 1/8 of its size when the crop still only
/// shrinks afterwards (see ``ModelInputSpec/jpegScale(for:orientation:)``): a 12-megapixel photo
/// for a 224 x 224 input decodes about ten times faster. The reduced decode averages 8 x 8 blocks
/// in the frequency domain rather than filtering full-size pixels, so the input differs from the
/// exact one by a few levels; ``exact`` reproduces reference preprocessing bit for bit.
package enum JPEGScalingPolicy: String, Sendable, Hashable, CaseIterable {
  /// Decode at the strongest reduction that still covers the model input.
  case automatic
  /// Always decode at full size.
  case exact
}
