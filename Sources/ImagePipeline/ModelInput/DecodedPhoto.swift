/// A photo decoded for one ``ModelInputSpec``: at the DCT-domain reduction the spec allows, and
/// only down to the last stored row the spec's resampling reads.
///
/// Made by ``ModelInputSpec/decode(_:decoder:orientation:jpegScaling:)-(ImageSource,_,_,_)`` and turned into the
/// input by ``ModelInputSpec/tensor(fromDecoded:)``; splitting the two lets a caller time
/// decoding and preprocessing separately. The pixels are meant for that spec and orientation
/// only: rows from ``decodedRows`` on are left zero.
package struct DecodedPhoto: Sendable {
  /// The decoded pixels, `scale` times the stored size (rounded up), with the file's orientation.
  package let image: RasterImage
  /// The orientation given to `decode` in place of the file's, or `nil` for the file's.
  package let orientation: ImageOrientation?
  /// The DCT-domain reduction the pixels were decoded at (``JPEGScale/full`` for PNG).
  package let scale: JPEGScale
  /// The stored width of the file.
  package let storedWidth: Int
  /// The stored height of the file.
  package let storedHeight: Int
  /// How many rows of ``image`` hold decoded pixels; the rest are zero.
  package let decodedRows: Int
  /// The file format the photo was decoded from; `nil` when it was given decoded.
  package let format: ImageFormat?
}
