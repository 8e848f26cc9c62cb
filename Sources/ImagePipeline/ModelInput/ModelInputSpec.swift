package import Foundation

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
    try normalized(render(image, orientation: orientation, reduction: nil))
  }

  /// Turns a JPEG decoded at a DCT-domain reduction into the input that the full-size image
  /// would give, up to the small pixel differences of the reduced decode.
  ///
  /// The crop, region of interest and padding are laid out on the full-size upright image, as
  /// ``tensor(from:orientation:)`` does, and the provenance reports them in full-size pixels; the
  /// resampler then reads the same area of the reduced pixels, at fractional positions where the
  /// crop does not fall on a multiple of the reduction. Use ``jpegScale(for:orientation:)`` to
  /// pick the reduction so that the reduced crop still only shrinks.
  ///
  /// - Parameters:
  ///   - image: The image decoded with ``DecodingOptions/jpegScale`` set to `scale`.
  ///   - orientation: The orientation to apply instead of the image's own; `nil` uses the image's.
  ///   - scale: The reduction the image was decoded at.
  ///   - storedWidth: The full stored width, from ``ImageDecoder/inspect(_:)-(Data)``.
  ///   - storedHeight: The full stored height.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the image is not the
  ///   reduced size of `storedWidth x storedHeight`, or as ``tensor(from:orientation:)`` does.
  package func tensor(
    from image: RasterImage, orientation: ImageOrientation? = nil, decodedAt scale: JPEGScale,
    storedWidth: Int, storedHeight: Int
  ) throws(ImageDecodingError) -> ModelInput {
    guard storedWidth > 0, storedHeight > 0,
      scale.scaledSize(width: storedWidth, height: storedHeight) == (image.width, image.height)
    else {
      throw ImageDecodingError(
        .invalidArgument,
        "a \(image.width)x\(image.height) image is not the 1/\(scale.denominator) decode of "
          + "\(storedWidth)x\(storedHeight)")
    }
    let reduction = scale == .full ? nil : (scale, storedWidth, storedHeight)
    return try normalized(render(image, orientation: orientation, reduction: reduction))
  }

  /// Decodes an encoded photo and turns it into the model input, decoding a large JPEG at a
  /// DCT-domain reduction when `jpegScaling` allows it.
  ///
  /// The same as ``decode(_:decoder:orientation:jpegScaling:)-(ImageSource,_,_,_)`` followed by
  /// ``tensor(fromDecoded:)``.
  ///
  /// - Parameters:
  ///   - data: The image file.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is replaced.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced; ``JPEGScalingPolicy/automatic`` by
  ///     default.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` from decoding, or as ``tensor(from:orientation:)`` does.
  package func tensor(
    fromEncoded data: Data, decoder: ImageDecoder = ImageDecoder(),
    orientation: ImageOrientation? = nil, jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> ModelInput {
    try tensor(
      fromDecoded: decode(
        data, decoder: decoder, orientation: orientation, jpegScaling: jpegScaling))
  }

  /// Decodes an encoded photo as far as this input needs it.
  ///
  /// The same as ``decode(_:decoder:orientation:jpegScaling:)-(ImageSource,_,_,_)`` with
  /// `ImageSource.data(data)`.
  ///
  /// - Parameters:
  ///   - data: The image file.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is replaced.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced.
  /// - Returns: The pixels and what ``tensor(fromDecoded:)`` needs.
  /// - Throws: ``ImageDecodingError`` from decoding, or with code `invalidArgument` when this
  ///   spec's size, region of interest or crop fraction is invalid.
  package func decode(
    _ data: Data, decoder: ImageDecoder = ImageDecoder(), orientation: ImageOrientation? = nil,
    jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> DecodedPhoto {
    try decode(
      ImageSource.data(data), decoder: decoder, orientation: orientation, jpegScaling: jpegScaling)
  }

  /// Decodes a photo as far as this input needs it: a file is read once, and an encoded photo's
  /// header and EXIF metadata are parsed once.
  ///
  /// With ``JPEGScalingPolicy/automatic``, a JPEG is decoded at the reduction
  /// ``jpegScale(for:orientation:)`` picks, and decoding stops after the last stored row the
  /// resampler reads (below a center crop, for example), which gives exactly the input of the
  /// whole reduced decode. A file that does not end with the JPEG EOI marker is decoded whole,
  /// so a truncated JPEG fails as it would otherwise. PNG files, and every file with
  /// ``JPEGScalingPolicy/exact``, are decoded whole at full size. A decoded image is taken as it
  /// is.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is replaced.
  ///   - orientation: The orientation to apply instead of the photo's; `nil` uses the photo's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced.
  /// - Returns: The pixels and what ``tensor(fromDecoded:)`` needs.
  /// - Throws: ``ImageDecodingError`` from reading or decoding, or with code `invalidArgument`
  ///   when this spec's size, region of interest or crop fraction is invalid.
  package func decode(
    _ source: ImageSource, decoder: ImageDecoder = ImageDecoder(),
    orientation: ImageOrientation? = nil, jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> DecodedPhoto {
    var decoder = decoder
    decoder.options.jpegScale = .full
    if let image = source.image {
      return DecodedPhoto(
        image: image, orientation: orientation, scale: .full, storedWidth: image.width,
        storedHeight: image.height, decodedRows: image.height, format: nil)
    }
    guard case .inspected(let data, let info) = try source.loaded(using: decoder).storage else {
      throw ImageDecodingError(.invalidArgument, "\(source.name) could not be loaded")
    }
    let scale =
      jpegScaling == .automatic ? try jpegScale(for: info, orientation: orientation) : .full
    decoder.options.jpegScale = scale
    // A HEIF file's rotation and mirroring are left to the resampler, as a JPEG's EXIF tag is.
    if orientation == nil, let image = try decoder.decodeStored(data, header: info) {
      return DecodedPhoto(
        image: image, orientation: nil, scale: .full, storedWidth: image.width,
        storedHeight: image.height, decodedRows: image.height, format: info.format)
    }
    guard scale != .full, Self.endsWithEndOfImage(data) else {
      let image = try decoder.decode(data, header: info)
      return DecodedPhoto(
        image: image, orientation: orientation, scale: scale, storedWidth: info.width,
        storedHeight: info.height, decodedRows: image.height, format: info.format)
    }
    let placement = try place(
      storedWidth: info.width, storedHeight: info.height, applied: orientation ?? info.orientation)
    let reduced = scale.scaledSize(width: info.width, height: info.height)
    let rows = placement.reducedSpans(
      scale: scale, storedWidth: info.width, storedHeight: info.height,
      reducedWidth: reduced.width, reducedHeight: reduced.height
    ).down.range.upperBound
    let image = try decoder.decode(data, header: info, firstRows: rows)
    return DecodedPhoto(
      image: image, orientation: orientation, scale: scale, storedWidth: info.width,
      storedHeight: info.height, decodedRows: min(rows, image.height), format: info.format)
  }

  /// Turns a photo decoded by ``decode(_:decoder:orientation:jpegScaling:)-(ImageSource,_,_,_)`` into the model
  /// input, with the orientation given to `decode`.
  ///
  /// - Parameter photo: The decoded photo.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` as
  ///   ``tensor(from:orientation:decodedAt:storedWidth:storedHeight:)`` does.
  package func tensor(fromDecoded photo: DecodedPhoto) throws(ImageDecodingError) -> ModelInput {
    try tensor(
      from: photo.image, orientation: photo.orientation, decodedAt: photo.scale,
      storedWidth: photo.storedWidth, storedHeight: photo.storedHeight)
  }

  /// Whether a JPEG's last two bytes are its EOI marker.
  private static func endsWithEndOfImage(_ data: Data) -> Bool {
    data.count >= 4 && data[data.endIndex - 2] == 0xFF && data[data.endIndex - 1] == 0xD9
  }

  /// The strongest DCT-domain reduction at which a JPEG still gives this input by shrinking only.
  ///
  /// The crop is laid out on the full-size upright image (orientation, region of interest and
  /// ``cropAndScale`` all count); the reduction is the largest `1/d` of 1/2, 1/4 and 1/8 for which
  /// the cropped pixels divided by `d` still cover the scaled content along both axes. For a
  /// center crop that means the cropped shorter side stays at least the input side; for fit, the
  /// longer side at least the input's; for fill, both sides. PNG files always get
  /// ``JPEGScale/full``.
  ///
  /// - Parameters:
  ///   - info: The header of the image, from ``ImageDecoder/inspect(_:)-(Data)``.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  /// - Returns: The reduction to decode at.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the size, region of
  ///   interest or crop fraction is invalid.
  package func jpegScale(for info: ImageInfo, orientation: ImageOrientation? = nil)
    throws(ImageDecodingError) -> JPEGScale
  {
    guard info.format == .jpeg else { return .full }
    try validate()
    let layout = try place(
      storedWidth: info.width, storedHeight: info.height,
      applied: orientation ?? info.orientation
    ).layout
    let content = layout.contentRect
    let (neededWidth, neededHeight) =
      layout.isRotated ? (content.height, content.width) : (content.width, content.height)
    let candidates: [JPEGScale] = [.eighth, .quarter, .half]
    return candidates.first { scale in
      layout.cropRect.width >= neededWidth * scale.denominator
        && layout.cropRect.height >= neededHeight * scale.denominator
    } ?? .full
  }

  /// Normalizes a rendered canvas into NCHW planes.
  private func normalized(_ rendered: (canvas: [Float], provenance: PreprocessingProvenance))
    -> ModelInput
  {
    let (canvas, provenance) = rendered
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
  package func picture(from image: RasterImage, orientation: ImageOrientation? = nil)
    throws(ImageDecodingError) -> PreprocessedPicture
  {
    let (canvas, provenance) = try render(image, orientation: orientation, reduction: nil)
    // Truncating the clamped level plus one half rounds to nearest without calling libm.
    let levels = canvas.map { UInt8(min(max($0, 0), 255) + 0.5) }
    let picture = RasterImage(validatedWidth: width, height: height, format: .rgb, pixels: levels)
    return PreprocessedPicture(image: picture, provenance: provenance)
  }

  private func validate() throws(ImageDecodingError) {
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

  /// Orients, cuts the region of interest, crops or pads and resamples into RGB floats 0...255.
  ///
  /// With a `reduction`, `image` is the reduced decode of a `storedWidth x storedHeight` JPEG:
  /// the layout is worked out at full size and mapped onto the reduced pixels.
  private func render(
    _ image: RasterImage, orientation: ImageOrientation?,
    reduction: (scale: JPEGScale, storedWidth: Int, storedHeight: Int)?
  ) throws(ImageDecodingError) -> (canvas: [Float], provenance: PreprocessingProvenance) {
    try validate()
    let storedWidth = reduction?.storedWidth ?? image.width
    let storedHeight = reduction?.storedHeight ?? image.height
    let applied = orientation ?? image.orientation
    let placement = try place(
      storedWidth: storedWidth, storedHeight: storedHeight, applied: applied)
    let (region, layout, cropRect) = (placement.region, placement.layout, placement.cropRect)
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
    if let reduction {
      let spans = placement.reducedSpans(
        scale: reduction.scale, storedWidth: storedWidth, storedHeight: storedHeight,
        reducedWidth: image.width, reducedHeight: image.height)
      let (across, down) = (spans.across, spans.down)
      Resampler.resample(
        image,
        stored: PixelRect(
          x: across.range.lowerBound, y: down.range.lowerBound, width: across.range.count,
          height: down.range.count),
        across: across.weights, down: down.weights, orientation: spans.turn, into: &canvas,
        canvasWidth: width, target: layout.contentRect, background: background)
    } else if layout.isRotated {
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
      sourceWidth: storedWidth, sourceHeight: storedHeight, orientation: applied,
      orientedWidth: placement.orientedWidth, orientedHeight: placement.orientedHeight,
      regionOfInterest: region,
      cropRect: cropRect, layout: layout, jpegScale: reduction?.scale ?? .full)
    return (canvas, provenance)
  }
}

extension ModelInputSpec {
  /// Where an image of a given stored size lands in the input: the upright size, the region of
  /// interest, the crop and scale layout, and the crop in upright pixels.
  struct Placement {
    let applied: ImageOrientation
    let orientedWidth: Int
    let orientedHeight: Int
    let region: PixelRect
    let layout: CropAndScaleLayout
    let cropRect: PixelRect

    /// The stored rows and columns of a reduced decode that the resampler reads, with their
    /// weights, and the orientation it walks them in.
    func reducedSpans(
      scale: JPEGScale, storedWidth: Int, storedHeight: Int, reducedWidth: Int, reducedHeight: Int
    ) -> (across: ReducedSpan, down: ReducedSpan, turn: ImageOrientation) {
      // The crop in full-size stored pixels, divided by the reduction: reduced pixel i covers
      // full-size pixels i * d ..< (i + 1) * d.
      let stored = OrientationWalk(applied, width: storedWidth, height: storedHeight)
        .storedRect(of: cropRect)
      let turn = layout.isRotated ? applied.turnedLeft : applied
      let target = layout.contentRect
      let denominator = Double(scale.denominator)
      func span(_ start: Int, _ count: Int, _ extent: Int, _ outputs: Int) -> ReducedSpan {
        let first = Double(start) / denominator
        let end = min(Double(start + count) / denominator, Double(extent))
        let range = Int(first)..<min(Int(end.rounded(.up)), extent)
        let weights = ResamplingWeights(
          inputCount: range.count, from: first - Double(range.lowerBound),
          to: end - Double(range.lowerBound), outputCount: outputs)
        return ReducedSpan(range: range, weights: weights)
      }
      let across = span(
        stored.x, stored.width, reducedWidth, turn.swapsDimensions ? target.height : target.width)
      let down = span(
        stored.y, stored.height, reducedHeight, turn.swapsDimensions ? target.width : target.height)
      return (across, down, turn)
    }
  }

  /// Stored pixels of a reduced decode along one axis and the weights that resample them.
  struct ReducedSpan {
    let range: Range<Int>
    let weights: ResamplingWeights
  }

  /// Lays out an image of the given stored size shown with `applied`.
  func place(storedWidth: Int, storedHeight: Int, applied: ImageOrientation)
    throws(ImageDecodingError) -> Placement
  {
    let orientedWidth = applied.swapsDimensions ? storedHeight : storedWidth
    let orientedHeight = applied.swapsDimensions ? storedWidth : storedHeight
    let region = try regionOfInterest.pixelRect(
      imageWidth: orientedWidth, imageHeight: orientedHeight)
    let layout = try cropAndScale.layout(
      sourceWidth: region.width, sourceHeight: region.height, inputWidth: width,
      inputHeight: height)
    return Placement(
      applied: applied, orientedWidth: orientedWidth, orientedHeight: orientedHeight,
      region: region, layout: layout,
      cropRect: layout.cropRect.offsetBy(x: region.x, y: region.y))
  }
}

extension ImageOrientation {
  /// The orientation that shows stored pixels as this one does and then turns the upright
  /// picture 90 degrees counter-clockwise, as the rotating fit and fill modes do.
  var turnedLeft: ImageOrientation {
    // Upright pixel (ux, uy) reads stored index base + ux * stepX + uy * stepY, and the turned
    // pixel (fx, fy) reads upright pixel (uprightWidth - 1 - fy, fx). On a 2 x 3 probe every
    // orientation has its own walk, so the composed walk names exactly one of them.
    let walk = OrientationWalk(self, width: 2, height: 3)
    let base = walk.base + (walk.displayWidth - 1) * walk.stepX
    return ImageOrientation.allCases.first { candidate in
      let other = OrientationWalk(candidate, width: 2, height: 3)
      return other.base == base && other.stepX == walk.stepY && other.stepY == -walk.stepX
    } ?? self
  }
}
