package import Foundation

// The spec's preparation entry points: each makes a ``PreparationPlan`` once and hands the work
// to the type that owns it (``ImageSource`` decodes, ``ModelInput`` and ``PreprocessedPicture``
// render).
extension ModelInputSpec {
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
    try PreparationPlan(spec: self, image: image, orientation: orientation)
      .modelInput(rendering: image)
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
    try PreparationPlan(
      spec: self, storedWidth: storedWidth, storedHeight: storedHeight,
      applying: orientation ?? image.orientation, reduction: scale
    ).modelInput(rendering: image)
  }

  /// Decodes an encoded photo and turns it into the model input, decoding a large JPEG at a
  /// DCT-domain reduction when `jpegScaling` allows it.
  ///
  /// The same as ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)`` followed by
  /// ``DecodedPhoto/modelInput()``.
  ///
  /// - Parameters:
  ///   - data: The image file.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is not used.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced; ``JPEGScalingPolicy/automatic`` by
  ///     default.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` from decoding, or as ``tensor(from:orientation:)`` does.
  package func tensor(
    fromEncoded data: Data, decoder: ImageDecoder = ImageDecoder(),
    orientation: ImageOrientation? = nil, jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> ModelInput {
    try ImageSource.data(data).decoded(
      for: self, decoder: decoder, orientation: orientation, jpegScaling: jpegScaling
    ).modelInput()
  }

  /// Decodes an encoded photo as far as this input needs it.
  ///
  /// The same as ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)`` on
  /// `ImageSource.data(data)`.
  ///
  /// - Parameters:
  ///   - data: The image file.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is not used.
  ///   - orientation: The orientation to apply instead of the file's; `nil` uses the file's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced.
  /// - Returns: The pixels and the plan ``tensor(fromDecoded:)`` renders them with.
  /// - Throws: ``ImageDecodingError`` from decoding, or with code `invalidArgument` when this
  ///   spec's size, region of interest or crop fraction is invalid.
  package func decode(
    _ data: Data, decoder: ImageDecoder = ImageDecoder(), orientation: ImageOrientation? = nil,
    jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> DecodedPhoto {
    try ImageSource.data(data).decoded(
      for: self, decoder: decoder, orientation: orientation, jpegScaling: jpegScaling)
  }

  /// Decodes a photo as far as this input needs it.
  ///
  /// The same as ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)``.
  ///
  /// - Parameters:
  ///   - source: The photo.
  ///   - decoder: The decoder whose limits apply; its ``DecodingOptions/jpegScale`` is not used.
  ///   - orientation: The orientation to apply instead of the photo's; `nil` uses the photo's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced.
  /// - Returns: The pixels and the plan ``tensor(fromDecoded:)`` renders them with.
  /// - Throws: ``ImageDecodingError`` from reading or decoding, or with code `invalidArgument`
  ///   when this spec's size, region of interest or crop fraction is invalid.
  package func decode(
    _ source: ImageSource, decoder: ImageDecoder = ImageDecoder(),
    orientation: ImageOrientation? = nil, jpegScaling: JPEGScalingPolicy = .automatic
  ) throws(ImageDecodingError) -> DecodedPhoto {
    try source.decoded(
      for: self, decoder: decoder, orientation: orientation, jpegScaling: jpegScaling)
  }

  /// Turns a decoded photo into this model input, with the orientation given to `decode`.
  ///
  /// The photo's own plan is used when it was made for this spec; otherwise the photo is laid
  /// out again for this spec at the reduction it was decoded at.
  ///
  /// - Parameter photo: The decoded photo.
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` as
  ///   ``tensor(from:orientation:decodedAt:storedWidth:storedHeight:)`` does.
  package func tensor(fromDecoded photo: DecodedPhoto) throws(ImageDecodingError) -> ModelInput {
    guard photo.plan.spec != self else { return try photo.modelInput() }
    return try tensor(
      from: photo.image, orientation: photo.orientation, decodedAt: photo.scale,
      storedWidth: photo.storedWidth, storedHeight: photo.storedHeight)
  }

  /// The strongest DCT-domain reduction at which a JPEG still gives this input by shrinking only.
  ///
  /// The same as the ``PreparationPlan/jpegScale`` of
  /// ``PreparationPlan/init(spec:info:orientation:jpegScaling:)``. PNG files always get
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
    return try PreparationPlan(spec: self, info: info, orientation: orientation).jpegScale
  }

  /// Produces the picture the model would see, before normalization, as 8-bit RGB.
  ///
  /// Levels are rounded to the nearest integer; ``normalization`` and ``channelOrder`` do not
  /// apply.
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
    try PreparationPlan(spec: self, image: image, orientation: orientation)
      .picture(rendering: image)
  }

}
