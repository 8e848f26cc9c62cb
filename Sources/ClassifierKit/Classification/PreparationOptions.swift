public import ImagePipeline

/// How a photo is turned into a model's input: decoding limits and an orientation override.
///
/// The crop, scale and normalization themselves belong to the model
/// (``ImageClassificationModel/inputSpec``); these options belong to the caller, like the
/// orientation given to Vision's `VNImageRequestHandler`.
public struct PreparationOptions: Sendable {
  /// The limits applied when an encoded photo is decoded (100 MP by default).
  ///
  /// A large JPEG's reduction is picked per photo from the model's input.
  public var decoding: DecodingOptions
  /// Whether a large JPEG may be decoded at a DCT-domain reduction;
  /// `JPEGScalingPolicy.automatic` by default.
  ///
  /// Automatic decodes a large photo at 1/2, 1/4 or 1/8 of its size when the crop to the input
  /// still only shrinks, which is several times faster for phone photos and changes the scores a
  /// little (Docs/Performance.md gives the measured cost); `JPEGScalingPolicy.exact` decodes at
  /// full size and reproduces the reference preprocessing. Photos given decoded are not affected.
  package var jpegScaling: JPEGScalingPolicy
  /// An orientation that replaces the photo's own EXIF orientation; `nil` uses the photo's.
  public var orientation: ImageOrientation?

  /// Creates preparation options; a large JPEG is decoded reduced when the input allows it.
  ///
  /// - Parameters:
  ///   - decoding: The decoding limits.
  ///   - orientation: An orientation overriding the photo's; `nil` uses the photo's.
  public init(decoding: DecodingOptions = DecodingOptions(), orientation: ImageOrientation? = nil) {
    self.init(decoding: decoding, jpegScaling: .automatic, orientation: orientation)
  }

  /// Creates preparation options with a JPEG scaling policy.
  package init(
    decoding: DecodingOptions = DecodingOptions(), jpegScaling: JPEGScalingPolicy,
    orientation: ImageOrientation? = nil
  ) {
    self.decoding = decoding
    self.jpegScaling = jpegScaling
    self.orientation = orientation
  }

  /// Default limits, automatic JPEG reduction and the photo's own orientation.
  public static let `default` = PreparationOptions()
}
