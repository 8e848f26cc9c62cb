import ImagePipeline
import Testing

/// Every crop and scale mode on all eight orientations of a 6 x 4 image with distinct samples.
///
/// Sizes are chosen so that the resampler copies pixels exactly (the scale is 1) or
/// interpolates with dyadic weights, so every output sample is known exactly.
@Suite struct CropAndScaleGoldenTests {
  /// The stored image is 6 x 4; the upright one is 6 x 4 or 4 x 6.
  private func source(_ orientation: ImageOrientation) throws -> RasterImage {
    try SyntheticImage.make(width: 6, height: 4, orientation: orientation)
  }

  private func picture(
    _ image: RasterImage, _ mode: CropAndScale, width: Int, height: Int, pad: RGBColor = .black
  ) throws -> PreprocessedPicture {
    try ModelInputSpec(width: width, height: height, cropAndScale: mode, padColor: pad)
      .picture(from: image)
  }

  /// Display pixel `(dx, dy)` of the upright source.
  private func display(_ image: RasterImage, _ dx: Int, _ dy: Int) -> [UInt8] {
    SyntheticImage.displaySamples(image, image.orientation, dx: dx, dy: dy)
  }

  @Test(arguments: ImageOrientation.allCases)
  func centerCropTakesTheMiddleSquare(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let result = try picture(image, .centerCrop, width: 4, height: 4)
    let offset = width > height ? (x: 1, y: 0) : (x: 0, y: 1)
    #expect(result.provenance.cropRect == PixelRect(x: offset.x, y: offset.y, width: 4, height: 4))
    #expect(result.provenance.orientation == orientation)
    for y in 0..<4 {
      for x in 0..<4 {
        #expect(
          SyntheticImage.samples(result.image, x: x, y: y)
            == display(image, offset.x + x, offset.y + y))
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func centerCropCutsAnOddLeftoverFromTheTopOrLeft(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let isWide = image.displayWidth > image.displayHeight
    let width = isWide ? 5 : 4
    let height = isWide ? 4 : 5
    let result = try picture(image, .centerCrop, width: width, height: height)
    let offset = isWide ? (x: 1, y: 0) : (x: 0, y: 1)
    #expect(
      result.provenance.cropRect
        == PixelRect(x: offset.x, y: offset.y, width: width, height: height))
    for y in 0..<height {
      for x in 0..<width {
        #expect(
          SyntheticImage.samples(result.image, x: x, y: y)
            == display(image, offset.x + x, offset.y + y))
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFillAtTheSameSizeIsTheUprightImage(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let result = try picture(
      image, .scaleFill, width: image.displayWidth, height: image.displayHeight)
    #expect(result.image == image.oriented())
    #expect(
      result.provenance.cropRect
        == PixelRect(width: image.displayWidth, height: image.displayHeight))
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFillDoublingInterpolatesQuartersAndThreeQuarters(
    _ orientation: ImageOrientation
  ) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let input = try ModelInputSpec(width: 2 * width, height: 2 * height, cropAndScale: .scaleFill)
      .tensor(from: image)
    // Doubling: output 2k reads 1/4 of k-1 and 3/4 of k, output 2k+1 reads 3/4 of k and 1/4 of
    // k+1; the first and last outputs copy the edge pixel.
    func taps(_ output: Int, _ count: Int) -> [(Int, Float)] {
      let k = output / 2
      if output == 0 { return [(0, 1)] }
      if output == 2 * count - 1 { return [(count - 1, 1)] }
      let quarter: Float = 0.25
      let threeQuarters: Float = 0.75
      return output % 2 == 0
        ? [(k - 1, quarter), (k, threeQuarters)] : [(k, threeQuarters), (k + 1, quarter)]
    }
    let plane = 4 * width * height
    for y in 0..<(2 * height) {
      for x in 0..<(2 * width) {
        for channel in 0..<3 {
          var expected: Float = 0
          for (row, rowWeight) in taps(y, height) {
            for (column, columnWeight) in taps(x, width) {
              expected += rowWeight * columnWeight * Float(display(image, column, row)[channel])
            }
          }
          let actual = input.tensor.values[channel * plane + y * 2 * width + x]
          #expect(actual == expected, "(\(x), \(y)) channel \(channel)")
        }
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFitPadsEvenlyWithTheOddRowAtTheBottom(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let result = try picture(image, .scaleFit, width: width, height: height + 3)
    #expect(
      result.provenance.layout.contentRect == PixelRect(x: 0, y: 1, width: width, height: height))
    #expect(result.provenance.cropRect == PixelRect(width: width, height: height))
    for y in 0..<(height + 3) {
      for x in 0..<width {
        let expected = (1...height).contains(y) ? display(image, x, y - 1) : [0, 0, 0]
        #expect(SyntheticImage.samples(result.image, x: x, y: y) == expected, "(\(x), \(y))")
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFitPadsEvenlyWithTheOddColumnAtTheRight(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let pad = RGBColor(red: 200, green: 150, blue: 100)
    let result = try picture(image, .scaleFit, width: width + 3, height: height, pad: pad)
    #expect(
      result.provenance.layout.contentRect == PixelRect(x: 1, y: 0, width: width, height: height))
    for y in 0..<height {
      for x in 0..<(width + 3) {
        let expected = (1...width).contains(x) ? display(image, x - 1, y) : [200, 150, 100]
        #expect(SyntheticImage.samples(result.image, x: x, y: y) == expected, "(\(x), \(y))")
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFillRotate90CCWTurnsTheTopRightCornerToTheTopLeft(
    _ orientation: ImageOrientation
  ) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let result = try picture(image, .scaleFillRotate90CCW, width: height, height: width)
    #expect(result.provenance.layout.isRotated)
    #expect(result.provenance.cropRect == PixelRect(width: width, height: height))
    for y in 0..<width {
      for x in 0..<height {
        #expect(
          SyntheticImage.samples(result.image, x: x, y: y) == display(image, width - 1 - y, x))
      }
    }
  }

  @Test(arguments: ImageOrientation.allCases)
  func scaleFitRotate90CCWTurnsThenPads(_ orientation: ImageOrientation) throws {
    let image = try source(orientation)
    let (width, height) = (image.displayWidth, image.displayHeight)
    let result = try picture(image, .scaleFitRotate90CCW, width: height + 3, height: width)
    #expect(
      result.provenance.layout.contentRect == PixelRect(x: 1, y: 0, width: height, height: width))
    for y in 0..<width {
      for x in 0..<(height + 3) {
        let expected = (1...height).contains(x) ? display(image, width - 1 - y, x - 1) : [0, 0, 0]
        #expect(SyntheticImage.samples(result.image, x: x, y: y) == expected, "(\(x), \(y))")
      }
    }
  }
}
