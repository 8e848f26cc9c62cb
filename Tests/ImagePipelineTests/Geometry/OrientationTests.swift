import ImagePipeline
import Testing

@Suite struct OrientationTests {
  @Test(arguments: ImageOrientation.allCases)
  func followsTheEXIFTableOnANonSquareImage(_ orientation: ImageOrientation) throws {
    let image = try SyntheticImage.make(width: 5, height: 3, orientation: orientation)
    let upright = image.oriented()
    #expect(upright.orientation == .up)
    #expect(upright.format == .rgb)
    let expectedSize = orientation.swapsDimensions ? (3, 5) : (5, 3)
    #expect(upright.width == expectedSize.0 && upright.height == expectedSize.1)
    #expect(upright.width == image.displayWidth && upright.height == image.displayHeight)
    for dy in 0..<upright.height {
      for dx in 0..<upright.width {
        #expect(
          SyntheticImage.samples(upright, x: dx, y: dy)
            == SyntheticImage.displaySamples(image, orientation, dx: dx, dy: dy),
          "display pixel (\(dx), \(dy))")
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases, PixelFormat.allCases)
  func handlesEveryFormatBeyondOneTile(
    _ orientation: ImageOrientation, _ format: PixelFormat
  ) throws {
    // 131 x 70 spans several 64-pixel tiles with ragged edges on both axes.
    let image = try SyntheticImage.make(width: 131, height: 70, format: format)
    let upright = image.oriented(orientation)
    var mismatches = 0
    for dy in 0..<upright.height {
      for dx in 0..<upright.width
      where SyntheticImage.samples(upright, x: dx, y: dy)
        != SyntheticImage.displaySamples(image, orientation, dx: dx, dy: dy)
      {
        mismatches += 1
      }
    }
    #expect(mismatches == 0)
    #expect(upright.width * upright.height == 131 * 70)
  }

  @Test func overrideReplacesTheStoredOrientation() throws {
    let image = try SyntheticImage.make(width: 4, height: 2, orientation: .right)
    let kept = image.oriented(.up)
    #expect(kept.pixels == image.pixels)
    #expect(kept.width == 4 && kept.orientation == .up)
    let flipped = image.oriented(.upMirrored)
    #expect(flipped.width == 4)
    #expect(
      SyntheticImage.samples(flipped, x: 0, y: 0) == SyntheticImage.samples(image, x: 3, y: 0))
  }

  @Test func orientInPlaceMatchesOriented() throws {
    var image = try SyntheticImage.make(width: 3, height: 2, format: .grayAlpha, orientation: .left)
    let expected = image.oriented()
    image.orient()
    #expect(image == expected)
    #expect(image.width == 2 && image.height == 3)
    image.orient()
    #expect(image == expected)
  }

  @Test func fourQuarterTurnsAreTheIdentity() throws {
    let image = try SyntheticImage.make(width: 7, height: 3)
    var turned = image
    for _ in 0..<4 {
      turned = turned.oriented(.right)
    }
    #expect(turned == image)
    #expect(image.oriented(.right).oriented(.left) == image)
    #expect(image.oriented(.leftMirrored).oriented(.leftMirrored) == image)
  }
}
