/// How one photo becomes one model input, worked out once from the spec, the photo's header and
/// the orientation, and read by both the decode and the render.
///
/// The plan holds where the photo lands in the input (the upright size, the region of interest,
/// the crop and scale layout and the crop in upright pixels, all in full-size pixels), the JPEG
/// DCT-domain reduction to decode at, and, for a reduced decode, the stored rows and columns the
/// resampler reads with their weights.
/// ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)`` asks the decoder for
/// ``jpegScale`` and only for the rows up to the last one the resampler reads;
/// ``DecodedPhoto/modelInput()`` renders with the same plan.
package struct PreparationPlan: Sendable, Hashable {
  /// The model input the plan prepares for.
  package let spec: ModelInputSpec

  /// Where the photo lands in the input, and the reduction it is decoded at, in full-size pixels.
  package let provenance: PreprocessingProvenance

  /// For a reduced decode, the stored pixels the resampler reads and the orientation it walks
  /// them in; `nil` for a full-size decode.
  let reducedSpans: ReducedSpans?

  /// The DCT-domain reduction the photo is decoded at; ``JPEGScale/full`` for every format but
  /// JPEG and for ``JPEGScalingPolicy/exact``.
  package var jpegScale: JPEGScale { provenance.jpegScale }

  /// The size of the decoded pixels the render expects: the stored size at ``jpegScale``.
  package var decodedSize: (width: Int, height: Int) {
    jpegScale.scaledSize(width: provenance.sourceWidth, height: provenance.sourceHeight)
  }

  /// How many stored rows of the decoded pixels the render reads; the decoded height for a
  /// full-size decode.
  var decodedRowLimit: Int { reducedSpans?.down.range.upperBound ?? decodedSize.height }

  /// Plans the preparation of an encoded photo from its header.
  ///
  /// With ``JPEGScalingPolicy/automatic``, a JPEG gets the largest reduction `1/d` of 1/2, 1/4
  /// and 1/8 for which the cropped full-size pixels divided by `d` still cover the scaled content
  /// along both axes, so the render only shrinks: for a center crop the cropped shorter side stays
  /// at least the input side, for fit the longer side at least the input's, for fill both sides.
  ///
  /// - Parameters:
  ///   - spec: The model input.
  ///   - info: The photo's header, from ``ImageDecoder/inspect(_:)-(Data)``.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced; ``JPEGScalingPolicy/automatic`` by
  ///     default.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the spec's size, region of
  ///   interest, crop fraction or normalization is invalid.
  package init(
    spec: ModelInputSpec, info: ImageInfo, orientation: ImageOrientation? = nil,
    jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) {
    try self.init(
      spec: spec, storedWidth: info.width, storedHeight: info.height,
      applying: orientation ?? info.orientation,
      reduction: info.format == .jpeg && jpegScaling == .automatic ? nil : .full)
  }

  /// Plans the preparation of an image already decoded at full size.
  ///
  /// - Parameters:
  ///   - spec: The model input.
  ///   - image: The decoded image.
  ///   - orientation: The orientation to apply instead of the image's own; `nil` uses the image's.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the spec's size, region of
  ///   interest, crop fraction or normalization is invalid.
  package init(spec: ModelInputSpec, image: RasterImage, orientation: ImageOrientation? = nil)
    throws(ImageDecodingError)
  {
    try self.init(
      spec: spec, storedWidth: image.width, storedHeight: image.height,
      applying: orientation ?? image.orientation, reduction: .full)
  }

  /// Lays out a photo of the given stored size shown with `applied`, at `reduction`, or at the
  /// strongest reduction that only shrinks when `reduction` is `nil`.
  init(
    spec: ModelInputSpec, storedWidth: Int, storedHeight: Int, applying applied: ImageOrientation,
    reduction: JPEGScale?
  ) throws(ImageDecodingError) {
    try spec.validate()
    let orientedWidth = applied.swapsDimensions ? storedHeight : storedWidth
    let orientedHeight = applied.swapsDimensions ? storedWidth : storedHeight
    let region = try spec.regionOfInterest.pixelRect(
      imageWidth: orientedWidth, imageHeight: orientedHeight)
    let layout = try spec.cropAndScale.layout(
      sourceWidth: region.width, sourceHeight: region.height, inputWidth: spec.width,
      inputHeight: spec.height)
    let scale = reduction ?? Self.strongestReduction(for: layout)
    self.spec = spec
    self.provenance = PreprocessingProvenance(
      sourceWidth: storedWidth, sourceHeight: storedHeight, orientation: applied,
      orientedWidth: orientedWidth, orientedHeight: orientedHeight, regionOfInterest: region,
      cropRect: layout.cropRect.offsetBy(x: region.x, y: region.y), layout: layout,
      jpegScale: scale)
    self.reducedSpans = scale == .full ? nil : ReducedSpans(provenance)
  }

  /// The largest reduction at which the crop, divided by it, still covers the content.
  private static func strongestReduction(for layout: CropAndScaleLayout) -> JPEGScale {
    let content = layout.contentRect
    let (neededWidth, neededHeight) =
      layout.isRotated ? (content.height, content.width) : (content.width, content.height)
    let candidates: [JPEGScale] = [.eighth, .quarter, .half]
    return candidates.first { scale in
      layout.cropRect.width >= neededWidth * scale.denominator
        && layout.cropRect.height >= neededHeight * scale.denominator
    } ?? .full
  }

  /// Renders decoded pixels as this plan says and normalizes them into NCHW planes in the spec's
  /// channel order.
  ///
  /// - Parameter image: The photo decoded at ``jpegScale``, of ``decodedSize``.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when `image` is not of
  ///   ``decodedSize``.
  package func modelInput(rendering image: RasterImage) throws(ImageDecodingError) -> ModelInput {
    let canvas = try render(image)
    return ModelInput(canvas: canvas, plan: self)
  }

  /// Renders decoded pixels as this plan says, rounding levels to the nearest integer; the
  /// spec's normalization and channel order do not apply.
  ///
  /// - Parameter image: The photo decoded at ``jpegScale``, of ``decodedSize``.
  /// - Returns: The upright RGB picture of the input size and what was done to produce it.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when `image` is not of
  ///   ``decodedSize``.
  package func picture(rendering image: RasterImage) throws(ImageDecodingError)
    -> PreprocessedPicture
  {
    let canvas = try render(image)
    return PreprocessedPicture(canvas: canvas, plan: self)
  }

  /// Orients, cuts the region of interest, crops or pads and resamples decoded pixels into RGB
  /// floats 0...255, `spec.width * spec.height` triples in row order.
  ///
  /// - Parameter image: The photo decoded at ``jpegScale``, of ``decodedSize``.
  /// - Returns: The canvas.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when `image` is not of
  ///   ``decodedSize``.
  func render(_ image: RasterImage) throws(ImageDecodingError) -> [Float] {
    let (storedWidth, storedHeight) = (provenance.sourceWidth, provenance.sourceHeight)
    guard storedWidth > 0, storedHeight > 0, decodedSize == (image.width, image.height) else {
      throw ImageDecodingError(
        .invalidArgument,
        "a \(image.width)x\(image.height) image is not the 1/\(jpegScale.denominator) decode of "
          + "\(storedWidth)x\(storedHeight)")
    }
    let layout = provenance.layout
    var canvas = [Float](repeating: 0, count: spec.width * spec.height * 3)
    if layout.hasPadding {
      let pad = spec.padColor.levels
      for pixel in stride(from: 0, to: canvas.count, by: 3) {
        canvas[pixel] = pad.x
        canvas[pixel + 1] = pad.y
        canvas[pixel + 2] = pad.z
      }
    }
    let background = spec.alphaBackground.levels
    if let spans = reducedSpans {
      let (across, down) = (spans.across, spans.down)
      Resampler.resample(
        image,
        stored: PixelRect(
          x: across.range.lowerBound, y: down.range.lowerBound, width: across.range.count,
          height: down.range.count),
        across: across.weights, down: down.weights, orientation: spans.turn, into: &canvas,
        canvasWidth: spec.width, target: layout.contentRect, background: background)
    } else if layout.isRotated {
      let turned = try image.oriented(provenance.orientation)
        .cropped(to: provenance.regionOfInterest).oriented(.left)
      Resampler.resample(
        turned, rect: PixelRect(width: turned.width, height: turned.height), into: &canvas,
        canvasWidth: spec.width, target: layout.contentRect, background: background)
    } else {
      Resampler.resample(
        image, orientation: provenance.orientation, rect: provenance.cropRect, into: &canvas,
        canvasWidth: spec.width, target: layout.contentRect, background: background)
    }
    return canvas
  }
}
