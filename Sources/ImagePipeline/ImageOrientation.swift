/// The EXIF/TIFF orientation of a stored image, with the same raw values as
/// `CGImagePropertyOrientation` (1...8).
///
/// The case names say where the top row of the stored image ends up when the image is shown
/// upright. Applying an orientation (``RasterImage/oriented(_:)``) turns the stored pixels into the
/// upright picture; orientations ``leftMirrored`` through ``left`` swap width and height.
public enum ImageOrientation: UInt8, Sendable, Hashable, CaseIterable {
  /// Stored upright; nothing to do.
  case up = 1
  /// Mirrored horizontally.
  case upMirrored = 2
  /// Rotated 180 degrees.
  case down = 3
  /// Mirrored vertically.
  case downMirrored = 4
  /// Transposed (mirrored about the top-left to bottom-right diagonal).
  case leftMirrored = 5
  /// Needs a 90 degree clockwise rotation to be upright.
  case right = 6
  /// Transversed (mirrored about the top-right to bottom-left diagonal).
  case rightMirrored = 7
  /// Needs a 90 degree counter-clockwise rotation to be upright.
  case left = 8

  /// Creates an orientation from an EXIF tag value, treating 0 and unknown values as ``up``.
  ///
  /// - Parameter exifValue: The value of TIFF tag 0x0112.
  public init(exifValue: Int) {
    self = UInt8(exactly: exifValue).flatMap(ImageOrientation.init(rawValue:)) ?? .up
  }

  /// Whether applying this orientation swaps the image's width and height.
  public var swapsDimensions: Bool {
    rawValue >= 5
  }
}
