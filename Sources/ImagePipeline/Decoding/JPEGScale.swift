/// A DCT-domain size reduction that libjpeg-turbo applies while decoding a JPEG.
///
/// Decoding at 1/2, 1/4 or 1/8 skips most of the inverse DCT and upsampling work, so it is the
/// biggest speed lever for large photos that are only needed small. The pixels differ a little
/// from a full decode followed by a resize, so reference-parity work should use ``full``.
/// The output of a reduced decode is `ceil(width / d) x ceil(height / d)` for denominator `d`.
/// PNG decoding ignores the scale.
package enum JPEGScale: Int, Sendable, Hashable, CaseIterable {
  /// No reduction.
  case full = 1
  /// Half the width and height.
  case half = 2
  /// A quarter of the width and height.
  case quarter = 4
  /// An eighth of the width and height.
  case eighth = 8

  /// The denominator `d` of the reduction `1/d`.
  package var denominator: Int { rawValue }

  /// The size a stored image decodes to at this scale.
  ///
  /// - Parameters:
  ///   - width: The stored width.
  ///   - height: The stored height.
  /// - Returns: `ceil(width / d)` and `ceil(height / d)` (without overflow for any `Int`).
  package func scaledSize(width: Int, height: Int) -> (width: Int, height: Int) {
    func rounded(_ value: Int) -> Int { value / rawValue + (value % rawValue > 0 ? 1 : 0) }
    return (rounded(width), rounded(height))
  }

  /// The strongest reduction that keeps the shorter side of the decoded image at least `side`
  /// pixels, so that any crop or scale mode to a `side x side` input still only shrinks.
  ///
  /// - Parameters:
  ///   - width: The stored width (from ``ImageDecoder/inspect(_:)-(Data)``).
  ///   - height: The stored height.
  ///   - side: The smallest acceptable shorter side of the decoded image.
  /// - Returns: The scale with the largest denominator that still satisfies `side`; ``full`` when
  ///   none does.
  package static func largestReduction(width: Int, height: Int, keepingShorterSideAtLeast side: Int)
    -> JPEGScale
  {
    let candidates: [JPEGScale] = [.eighth, .quarter, .half]
    return candidates.first { scale in
      let size = scale.scaledSize(width: width, height: height)
      return min(size.width, size.height) >= side
    } ?? .full
  }
}
