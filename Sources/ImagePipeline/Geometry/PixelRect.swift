/// A rectangle of whole pixels with a top-left origin, as images are stored.
///
/// `x` grows to the right and `y` grows downward; the rectangle covers columns `x..<x + width` and
/// rows `y..<y + height`.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
  /// The leftmost column.
  public var x: Int
  /// The topmost row.
  public var y: Int
  /// The number of columns.
  public var width: Int
  /// The number of rows.
  public var height: Int

  /// Creates a rectangle.
  ///
  /// - Parameters:
  ///   - x: The leftmost column.
  ///   - y: The topmost row.
  ///   - width: The number of columns.
  ///   - height: The number of rows.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The whole of an image of the given size.
  ///
  /// - Parameters:
  ///   - width: The image width.
  ///   - height: The image height.
  public init(width: Int, height: Int) {
    self.init(x: 0, y: 0, width: width, height: height)
  }

  /// The rectangle as `x,y widthxheight`.
  public var description: String {
    "\(x),\(y) \(width)x\(height)"
  }

  /// Whether the rectangle is non-empty and lies inside an image of the given size.
  ///
  /// - Parameters:
  ///   - imageWidth: The image width.
  ///   - imageHeight: The image height.
  /// - Returns: `true` when every covered pixel exists in the image.
  public func fits(imageWidth: Int, imageHeight: Int) -> Bool {
    width > 0 && height > 0 && x >= 0 && y >= 0 && x <= imageWidth - width
      && y <= imageHeight - height
  }

  /// The rectangle moved by an offset.
  func offsetBy(x dx: Int, y dy: Int) -> PixelRect {
    PixelRect(x: x + dx, y: y + dy, width: width, height: height)
  }
}
