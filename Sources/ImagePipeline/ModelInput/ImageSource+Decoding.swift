import Foundation

extension ImageSource {
  /// Decodes the photo as far as one model input needs it: a file is read once, and an encoded
  /// photo's header and EXIF metadata are parsed once.
  ///
  /// The ``PreparationPlan`` is made once, from the header and the orientation, and the decode
  /// follows it. With ``JPEGScalingPolicy/automatic``, a JPEG is decoded at the plan's reduction,
  /// and decoding stops after the last stored row the resampler reads (below a center crop, for
  /// example), which gives exactly the input of the whole reduced decode. A file that does not
  /// end with the JPEG EOI marker is decoded whole, so a truncated JPEG fails as it would
  /// otherwise. PNG files, and every file with ``JPEGScalingPolicy/exact``, are decoded whole at
  /// full size. A decoded image is taken as it is.
  ///
  /// - Parameters:
  ///   - spec: The model input.
  ///   - decoder: The decoder whose limits apply; the plan's reduction replaces its
  ///     ``DecodingOptions/jpegScale``.
  ///   - orientation: The orientation to apply instead of the photo's; `nil` uses the photo's.
  ///   - jpegScaling: Whether a JPEG may be decoded reduced; ``JPEGScalingPolicy/automatic`` by
  ///     default.
  ///   - plan: The plan already made from this photo's header with the same spec, orientation
  ///     and scaling (a serving executor makes it to size the decode's memory), or `nil`.
  /// - Returns: The pixels and the plan that ``DecodedPhoto/modelInput()`` renders them with.
  /// - Throws: ``ImageDecodingError`` from reading or decoding, or with code `invalidArgument`
  ///   when the spec's size, region of interest or crop fraction is invalid.
  package func decoded(
    for spec: ModelInputSpec, decoder: ImageDecoder = ImageDecoder(),
    orientation: ImageOrientation? = nil, jpegScaling: JPEGScalingPolicy = .automatic,
    plan: PreparationPlan? = nil
  ) throws(ImageDecodingError) -> DecodedPhoto {
    if let image {
      return try DecodedPhoto(
        image: image, orientation: orientation,
        plan: PreparationPlan(spec: spec, image: image, orientation: orientation),
        decodedRows: image.height, format: nil)
    }
    guard case .inspected(let data, let info) = try loaded(using: decoder).storage else {
      throw ImageDecodingError(.invalidArgument, "\(name) could not be loaded")
    }
    // A HEIF file's rotation and mirroring are left to the resampler, as a JPEG's EXIF tag is;
    // its plan follows the stored pixels, which the header does not describe.
    if orientation == nil, let image = try decoder.decodeStored(data, header: info) {
      return try DecodedPhoto(
        image: image, orientation: nil, plan: PreparationPlan(spec: spec, image: image),
        decodedRows: image.height, format: info.format)
    }
    let headerPlan: PreparationPlan
    if let plan {
      headerPlan = plan
    } else {
      headerPlan = try PreparationPlan(
        spec: spec, info: info, orientation: orientation, jpegScaling: jpegScaling)
    }
    let rows =
      headerPlan.jpegScale != .full && Self.endsWithEndOfImage(data)
      ? headerPlan.decodedRowLimit : nil
    let image = try decoder.decode(data, header: info, scale: headerPlan.jpegScale, firstRows: rows)
    return DecodedPhoto(
      image: image, orientation: orientation, plan: headerPlan,
      decodedRows: min(rows ?? image.height, image.height), format: info.format)
  }

  /// Whether a JPEG's last two bytes are its EOI marker.
  private static func endsWithEndOfImage(_ data: Data) -> Bool {
    data.count >= 4 && data[data.endIndex - 2] == 0xFF && data[data.endIndex - 1] == 0xD9
  }
}
