/// An opaque 8-bit color, used for padding and as the background that alpha is composited over.
public struct RGBColor: Sendable, Hashable {
  /// The red level.
  public var red: UInt8
  /// The green level.
  public var green: UInt8
  /// The blue level.
  public var blue: UInt8

  /// Black, the default padding and alpha background.
  public static let black = RGBColor(red: 0, green: 0, blue: 0)

  /// White.
  public static let white = RGBColor(red: 255, green: 255, blue: 255)

  /// Creates a color from its levels.
  ///
  /// - Parameters:
  ///   - red: The red level.
  ///   - green: The green level.
  ///   - blue: The blue level.
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// Creates a gray with equal levels.
  ///
  /// - Parameter gray: The level of all three channels.
  public init(gray: UInt8) {
    self.init(red: gray, green: gray, blue: gray)
  }

  /// The levels as floats in 0...255, red first.
  var levels: SIMD3<Float> {
    SIMD3(Float(red), Float(green), Float(blue))
  }
}
