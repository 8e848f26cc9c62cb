/// Everything needed to turn a decoded image into a model input: size, crop and scale, region of
/// interest, normalization and channel order.
///
/// ``tensor(from:orientation:)`` runs the whole pipeline: orientation, then the region of interest,
/// then ``CropAndScale`` (crop, turn, padding), then the antialiased triangle resampler on floats
/// (``ResamplingWeights``), then normalization into NCHW planes. Alpha is composited over
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

  /// Turns an image into a normalized float32 input of shape `[1, 3, height, width]`.
  ///
  /// - Parameters:
  ///   - image: The decoded image.
  ///   - orientation: The orientation to apply instead of the image's own; `nil` uses the image's.
  /// - Returns: The tensor and what was done to produce it.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the size, region of
  ///   interest, crop fraction or normalization is invalid.
  public func tensor(from image: RasterImage, orientation: ImageOrientation? = nil)
    throws(ImageDecodingError) -> ModelInput
  {
    let (canvas, provenance) = try render(image, orientation: orientation)
    let area = width * height
    let planes = channelOrder == .rgb ? SIMD3(0, 1, 2) : SIMD3(2, 1, 0)
    let scale = normalization.scale
    let bias = normalization.bias
    let values = [Float](unsafeUninitializedCapacity: 3 * area) { output, count in
      canvas.withUnsafeBufferPointer { canvas in
        // Safety: `canvas` holds `area` RGB triples and `output` three planes of `area` floats;
        // every plane index is 0, 1 or 2.
        guard let input = canvas.baseAddress, let output = output.baseAddress else { return }
        let red = output + planes.x * area
        let green = output + planes.y * area
        let blue = output + planes.z * area
        for pixel in 0..<area {
          red[pixel] = input[3 * pixel] * scale.x + bias.x
          green[pixel] = input[3 * pixel + 1] * scale.y + bias.y
          blue[pixel] = input[3 * pixel + 2] * scale.z + bias.z
        }
      }
      count = 3 * area
    }
    let tensor = ImageTensor(validatedShape: [1, 3, height, width], values: values)
    return ModelInput(tensor: tensor, provenance: provenance)
  }

  /// Produces the picture the model would see, before normalization, as 8-bit RGB.
  ///
  /// Levels are rounded to the nearest integer; ``normalization`` and ``channelOrder`` do not apply.
  ///
  /// - Parameters:
  ///   - image: The decoded image.
  ///   - orientation: The orientation to apply instead of the image's own; `nil` uses the image's.
  /// - Returns: An upright RGB image of `width x height` and what was done to produce it.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the size, region of
  ///   interest or crop fraction is invalid.
  public func picture(from image: RasterImage, orientation: ImageOrientation? = nil)
    throws(ImageDecodingError) -> PreprocessedPicture
  {
    let (canvas, provenance) = try render(image, orientation: orientation)
    // Truncating the clamped level plus one half rounds to nearest without calling libm.
    let levels = canvas.map { UInt8(min(max($0, 0), 255) + 0.5) }
    let picture = RasterImage(validatedWidth: width, height: height, format: .rgb, pixels: levels)
    return PreprocessedPicture(image: picture, provenance: provenance)
  }

  /// Orients, cuts the region of interest, crops or pads and resamples into RGB floats 0...255.
  private func render(_ image: RasterImage, orientation: ImageOrientation?)
    throws(ImageDecodingError) -> (canvas: [Float], provenance: PreprocessingProvenance)
  {
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
    let applied = orientation ?? image.orientation
    let orientedWidth = applied.swapsDimensions ? image.height : image.width
    let orientedHeight = applied.swapsDimensions ? image.width : image.height
    let region = try regionOfInterest.pixelRect(
      imageWidth: orientedWidth, imageHeight: orientedHeight)
    let layout = try cropAndScale.layout(
      sourceWidth: region.width, sourceHeight: region.height, inputWidth: width,
      inputHeight: height)
    var canvas = [Float](repeating: 0, count: width * height * 3)
    if layout.hasPadding {
      let pad = padColor.levels
      for pixel in stride(from: 0, to: canvas.count, by: 3) {
        canvas[pixel] = pad.x
        canvas[pixel + 1] = pad.y
        canvas[pixel + 2] = pad.z
      }
    }
    let background = alphaBackground.levels
    let cropRect = layout.cropRect.offsetBy(x: region.x, y: region.y)
    if layout.isRotated {
      let turned = try image.oriented(applied).cropped(to: region).oriented(.left)
      Resampler.resample(
        turned, rect: PixelRect(width: turned.width, height: turned.height), into: &canvas,
        canvasWidth: width, target: layout.contentRect, background: background)
    } else {
      Resampler.resample(
        image, orientation: applied, rect: cropRect, into: &canvas, canvasWidth: width,
        target: layout.contentRect, background: background)
    }
    let provenance = PreprocessingProvenance(
      sourceWidth: image.width, sourceHeight: image.height, orientation: applied,
      orientedWidth: orientedWidth, orientedHeight: orientedHeight, regionOfInterest: region,
      cropRect: cropRect, layout: layout)
    return (canvas, provenance)
  }
}
