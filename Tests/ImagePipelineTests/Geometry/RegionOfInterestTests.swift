import ImagePipeline
import Testing

@Suite struct RegionOfInterestTests {
  @Test func originIsTheLowerLeftCorner() throws {
    let bottomLeft = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
    #expect(
      try bottomLeft.pixelRect(imageWidth: 6, imageHeight: 4)
        == PixelRect(x: 0, y: 2, width: 3, height: 2))
    let topRight = NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
    #expect(
      try topRight.pixelRect(imageWidth: 6, imageHeight: 4)
        == PixelRect(x: 3, y: 0, width: 3, height: 2))
    #expect(
      try NormalizedRect.full.pixelRect(imageWidth: 6, imageHeight: 4)
        == PixelRect(width: 6, height: 4))
  }

  @Test func edgesRoundToTheNearestPixel() throws {
    // Left 0.25 * 6 = 1.5 -> 2, right 0.75 * 6 = 4.5 -> 5; measured from the top, the region
    // spans (1 - 0.625) * 4 = 1.5 -> 2 to (1 - 0.125) * 4 = 3.5 -> 4.
    let rect = NormalizedRect(x: 0.25, y: 0.125, width: 0.5, height: 0.5)
    #expect(
      try rect.pixelRect(imageWidth: 6, imageHeight: 4)
        == PixelRect(x: 2, y: 2, width: 3, height: 2))
  }

  @Test func regionIsCutFromTheUprightImageBeforeCropping() throws {
    // Upright, the `.right` image is 4 x 6; its bottom half is rows 3..<6.
    let image = try SyntheticImage.make(width: 6, height: 4, orientation: .right)
    let spec = ModelInputSpec(
      width: 3, height: 3, cropAndScale: .centerCrop,
      regionOfInterest: NormalizedRect(x: 0, y: 0, width: 1, height: 0.5))
    let result = try spec.picture(from: image)
    #expect(result.provenance.regionOfInterest == PixelRect(x: 0, y: 3, width: 4, height: 3))
    // The 4 x 3 region center-crops to 3 x 3 at column (4 - 3 + 1) / 2 = 1.
    #expect(result.provenance.cropRect == PixelRect(x: 1, y: 3, width: 3, height: 3))
    #expect(result.provenance.layout.cropRect == PixelRect(x: 1, y: 0, width: 3, height: 3))
    for y in 0..<3 {
      for x in 0..<3 {
        #expect(
          SyntheticImage.samples(result.image, x: x, y: y)
            == SyntheticImage.displaySamples(image, .right, dx: 1 + x, dy: 3 + y))
      }
    }
  }

  @Test func rotatedModesTurnOnlyTheRegion() throws {
    let image = try SyntheticImage.make(width: 6, height: 4)
    let spec = ModelInputSpec(
      width: 2, height: 3, cropAndScale: .scaleFillRotate90CCW,
      regionOfInterest: NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5))
    let result = try spec.picture(from: image)
    #expect(result.provenance.cropRect == PixelRect(x: 3, y: 0, width: 3, height: 2))
    for y in 0..<3 {
      for x in 0..<2 {
        #expect(
          SyntheticImage.samples(result.image, x: x, y: y)
            == SyntheticImage.samples(image, x: 3 + 2 - y, y: x))
      }
    }
  }

  @Test func rejectsRegionsOutsideTheImageOrWithoutPixels() {
    let invalid = [
      NormalizedRect(x: -0.1, y: 0, width: 0.5, height: 0.5),
      NormalizedRect(x: 0.6, y: 0, width: 0.5, height: 0.5),
      NormalizedRect(x: 0, y: 0, width: 0, height: 1),
      NormalizedRect(x: .nan, y: 0, width: 1, height: 1),
      NormalizedRect(x: 0, y: 0, width: 0.05, height: 1),
    ]
    for rect in invalid {
      let error = #expect(throws: ImageDecodingError.self) {
        try rect.pixelRect(imageWidth: 6, imageHeight: 4)
      }
      #expect(error?.code == .invalidArgument, "\(rect)")
    }
  }
}
