/// A photo decoded for one ``ModelInputSpec``: at the DCT-domain reduction the spec allows, and
/// only down to the last stored row the spec's resampling reads.
///
/// Made by ``ImageSource/decoded(for:decoder:orientation:jpegScaling:plan:)`` and turned into the
/// input by ``modelInput()``; splitting the two lets a caller time decoding and preprocessing
/// separately. The pixels are meant for that spec and orientation only: rows from
/// ``decodedRows`` on are left zero.
package struct DecodedPhoto: Sendable {
  /// The decoded pixels, `scale` times the stored size (rounded up), with the file's orientation.
  package let image: RasterImage
  /// The orientation given to `decode` in place of the file's, or `nil` for the file's.
  package let orientation: ImageOrientation?
  /// The plan the photo was decoded by, which the render reads too.
  package let plan: PreparationPlan
  /// How many rows of ``image`` hold decoded pixels; the rest are zero.
  package let decodedRows: Int
  /// The file format the photo was decoded from; `nil` when it was given decoded.
  package let format: ImageFormat?

  /// The DCT-domain reduction the pixels were decoded at (``JPEGScale/full`` for PNG).
  package var scale: JPEGScale { plan.jpegScale }
  /// The stored width of the file.
  package var storedWidth: Int { plan.provenance.sourceWidth }
  /// The stored height of the file.
  package var storedHeight: Int { plan.provenance.sourceHeight }

  /// Turns the photo into the model input its plan was made for.
  ///
  /// - Returns: The tensor and what was done to produce it, in full-size pixels.
  /// - Throws: ``ImageDecodingError`` as ``PreparationPlan/modelInput(rendering:)`` does.
  package func modelInput() throws(ImageDecodingError) -> ModelInput {
    try plan.modelInput(rendering: image)
  }
}
