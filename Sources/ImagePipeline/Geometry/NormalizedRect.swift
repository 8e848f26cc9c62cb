/// A rectangle in normalized image coordinates with a lower-left origin, as Vision's
/// `regionOfInterest` uses.
///
/// Coordinates are fractions of the upright (oriented) image: `(0, 0)` is the bottom-left corner and
/// `(1, 1)` the top-right one, so `y` grows upward, unlike ``PixelRect``. The rectangle
/// `NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)` is the bottom-left quarter.
public struct NormalizedRect: Sendable, Hashable {
  /// The left edge, as a fraction of the image width.
  public var x: Double
  /// The bottom edge, as a fraction of the image height measured from the bottom.
  public var y: Double
  /// The width, as a fraction of the image width.
  public var width: Double
  /// The height, as a fraction of the image height.
  public var height: Double

  /// The whole image, Vision's default region of interest.
  public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

  /// Creates a rectangle.
  ///
  /// - Parameters:
  ///   - x: The left edge, as a fraction of the image width.
  ///   - y: The bottom edge, as a fraction of the image height measured from the bottom.
  ///   - width: The width, as a fraction of the image width.
  ///   - height: The height, as a fraction of the image height.
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The whole pixels this rectangle covers in an upright image of the given size.
  ///
  /// Each edge is rounded to the nearest pixel boundary (halves away from zero) and the vertical
  /// axis is flipped to the top-left origin of ``PixelRect``.
  ///
  /// - Parameters:
  ///   - imageWidth: The upright image width.
  ///   - imageHeight: The upright image height.
  /// - Returns: The covered pixels.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the rectangle is not finite,
  ///   leaves the unit square, or covers no whole pixel.
  public func pixelRect(imageWidth: Int, imageHeight: Int) throws(ImageDecodingError) -> PixelRect {
    let slack = 1e-9
    let edges = [x, y, width, height]
    guard edges.allSatisfy(\.isFinite), x >= -slack, y >= -slack, width > 0, height > 0,
      x + width <= 1 + slack, y + height <= 1 + slack
    else {
      throw ImageDecodingError(
        .invalidArgument,
        "region of interest \(x),\(y) \(width)x\(height) must be non-empty and inside 0...1")
    }
    let left = Self.boundary(x, imageWidth)
    let right = Self.boundary(x + width, imageWidth)
    let top = Self.boundary(1 - (y + height), imageHeight)
    let bottom = Self.boundary(1 - y, imageHeight)
    guard right > left, bottom > top else {
      throw ImageDecodingError(
        .invalidArgument,
        "region of interest \(x),\(y) \(width)x\(height) covers no whole pixel of a "
          + "\(imageWidth)x\(imageHeight) image")
    }
    return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
  }

  private static func boundary(_ fraction: Double, _ extent: Int) -> Int {
    // Truncating a non-negative value plus one half rounds halves up without calling libm.
    min(Int(max(fraction * Double(extent), 0) + 0.5), extent)
  }
}
