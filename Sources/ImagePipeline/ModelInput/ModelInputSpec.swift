/// Everything needed to turn a decoded image into a model input: size, crop and scale, region of
/// interest, normalization and channel order.
///
/// The spec is plain data. Each photo is laid out for it once: orientation, then the region of
/// interest, then ``CropAndScale`` (crop, turn, padding), and the JPEG reduction to decode at; the
/// photo is then resampled with an antialiased triangle filter on floats and normalized into NCHW
/// planes. ``tensor(from:orientation:)`` does all of it for a decoded image. Alpha is composited over
/// ``alphaBackground``, black by default: Core ML and Vision hand models premultiplied pixel
/// buffers, in which a transparent pixel has zero color, so black reproduces what an app on an
/// iPhone would feed the same model. Gray images are widened to three equal channels.
public struct ModelInputSpec: Sendable, Hashable {
  /// The input width in pixels.
  public var width: Int
  /// The input height in pixels.
  public var height: Int
  /// How the image is fitted to the input size.
  public var cropAndScale: CropAndScale
  /// The part of the upright image to use, lower-left origin as in Vision; the whole image by
  /// default.
  public var regionOfInterest: NormalizedRect
  /// The map from levels to input values.
  public var normalization: PixelNormalization
  /// The order of the color planes.
  public var channelOrder: ChannelOrder
  /// The color of the padding that ``CropAndScale/scaleFit`` adds, black by default.
  public var padColor: RGBColor
  /// The color that transparent pixels are composited over, black by default.
  public var alphaBackground: RGBColor

  /// The largest accepted width or height.
  public static let maximumSide = 16_384

  /// The largest accepted number of input pixels (a 2048 x 2048 input), which bounds the float
  /// canvas and tensor to 48 MB each.
  public static let maximumPixelCount = 1 << 22

  /// Creates a specification.
  ///
  /// - Parameters:
  ///   - width: The input width in pixels.
  ///   - height: The input height in pixels.
  ///   - cropAndScale: How the image is fitted; ``CropAndScale/centerCrop`` by default.
  ///   - regionOfInterest: The part of the upright image to use; the whole image by default.
  ///   - normalization: The map from levels to values; levels as they are by default.
  ///   - channelOrder: The order of the color planes; RGB by default.
  ///   - padColor: The padding color for fitting; black by default.
  ///   - alphaBackground: The color transparent pixels are composited over; black by default.
  public init(
    width: Int, height: Int, cropAndScale: CropAndScale = .centerCrop,
    regionOfInterest: NormalizedRect = .full, normalization: PixelNormalization = .identity,
    channelOrder: ChannelOrder = .rgb, padColor: RGBColor = .black,
    alphaBackground: RGBColor = .black
  ) {
    self.width = width
    self.height = height
    self.cropAndScale = cropAndScale
    self.regionOfInterest = regionOfInterest
    self.normalization = normalization
    self.channelOrder = channelOrder
    self.padColor = padColor
    self.alphaBackground = alphaBackground
  }

  /// Creates a specification for a square input.
  ///
  /// - Parameters:
  ///   - size: The input width and height in pixels.
  ///   - cropAndScale: How the image is fitted; ``CropAndScale/centerCrop`` by default.
  ///   - normalization: The map from levels to values; levels as they are by default.
  ///   - channelOrder: The order of the color planes; RGB by default.
  public init(
    size: Int, cropAndScale: CropAndScale = .centerCrop,
    normalization: PixelNormalization = .identity, channelOrder: ChannelOrder = .rgb
  ) {
    self.init(
      width: size, height: size, cropAndScale: cropAndScale, normalization: normalization,
      channelOrder: channelOrder)
  }

  /// The preprocessing EfficientNet-Lite models were evaluated with.
  ///
  /// A centered square of side `Int(S / (S + 32) * min(height, width))` at
  /// `((height - side) + 1) / 2, ((width - side) + 1) / 2`, resized to `S x S`, normalized as
  /// `(level - 127) / 128`, RGB.
  ///
  /// - Parameter size: The input side `S`: 224 for Lite0, 240 for Lite1.
  /// - Returns: The specification.
  public static func efficientNetLite(size: Int) -> ModelInputSpec {
    ModelInputSpec(
      size: size, cropAndScale: .centerCrop(fraction: Double(size) / Double(size + 32)),
      normalization: .efficientNetLite)
  }

  /// Checks that the size is within the limits and the normalization usable.
  ///
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` naming what is wrong.
  func validate() throws(ImageDecodingError) {
    guard width > 0, height > 0, width <= Self.maximumSide, height <= Self.maximumSide,
      width * height <= Self.maximumPixelCount
    else {
      throw ImageDecodingError(
        .invalidArgument,
        "model input size \(width)x\(height) is outside 1...\(Self.maximumSide) per side or "
          + "over \(Self.maximumPixelCount) pixels")
    }
    guard normalization.isValid else {
      throw ImageDecodingError(
        .invalidArgument, "normalization \(normalization) has a zero or non-finite value")
    }
  }
}
