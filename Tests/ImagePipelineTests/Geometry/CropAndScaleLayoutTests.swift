import ImagePipeline
import Testing

@Suite struct CropAndScaleLayoutTests {
  @Test func centerCropRoundsAFractionalSideDown() throws {
    // The exact box is 7.5 x 3: the side becomes 7 and the odd leftover pixel is cut on the left.
    let layout = try CropAndScale.centerCrop.layout(
      sourceWidth: 10, sourceHeight: 3, inputWidth: 5, inputHeight: 2)
    #expect(layout.cropRect == PixelRect(x: 2, y: 0, width: 7, height: 3))
    #expect(layout.contentRect == PixelRect(width: 5, height: 2))
    #expect(!layout.hasPadding && !layout.isRotated)
  }

  @Test func centerCropOfATallImageCutsTopAndBottom() throws {
    let layout = try CropAndScale.centerCrop.layout(
      sourceWidth: 300, sourceHeight: 451, inputWidth: 224, inputHeight: 224)
    #expect(layout.cropRect == PixelRect(x: 0, y: 76, width: 300, height: 300))
  }

  @Test func efficientNetLiteCropMatchesTheReferenceFormula() throws {
    // chelsea.png is 451 x 300: c = Int(224 / 256 * 300) = 262 at top 19, left 95.
    let lite0 = try CropAndScale.centerCrop(fraction: 224.0 / 256.0)
      .layout(sourceWidth: 451, sourceHeight: 300, inputWidth: 224, inputHeight: 224)
    #expect(lite0.cropRect == PixelRect(x: 95, y: 19, width: 262, height: 262))
    for (width, height) in [(451, 300), (640, 427), (1125, 750), (512, 512), (33, 97)] {
      for size in [224, 240] {
        let side = Int(Double(size) / Double(size + 32) * Double(min(width, height)))
        let expected = PixelRect(
          x: ((width - side) + 1) / 2, y: ((height - side) + 1) / 2, width: side, height: side)
        let spec = ModelInputSpec.efficientNetLite(size: size)
        let layout = try spec.cropAndScale.layout(
          sourceWidth: width, sourceHeight: height, inputWidth: size, inputHeight: size)
        #expect(layout.cropRect == expected, "\(width)x\(height) at \(size)")
      }
    }
  }

  @Test func scaleFitRoundsTheShortSideToNearest() throws {
    // 6 x 4 into 8 x 8: the height scales to 5.33, rounded to 5, placed at row (8 - 5) / 2 = 1.
    let layout = try CropAndScale.scaleFit.layout(
      sourceWidth: 6, sourceHeight: 4, inputWidth: 8, inputHeight: 8)
    #expect(layout.contentRect == PixelRect(x: 0, y: 1, width: 8, height: 5))
    #expect(layout.cropRect == PixelRect(width: 6, height: 4))
    #expect(layout.hasPadding)
    // 4 x 6 into 9 x 9: the width scales to exactly 6, placed at column 1 (odd column right).
    let tall = try CropAndScale.scaleFit.layout(
      sourceWidth: 4, sourceHeight: 6, inputWidth: 9, inputHeight: 9)
    #expect(tall.contentRect == PixelRect(x: 1, y: 0, width: 6, height: 9))
  }

  @Test func rotatedFitUsesTheTurnedAspect() throws {
    let layout = try CropAndScale.scaleFitRotate90CCW.layout(
      sourceWidth: 6, sourceHeight: 3, inputWidth: 6, inputHeight: 6)
    #expect(layout.isRotated)
    #expect(layout.contentRect == PixelRect(x: 1, y: 0, width: 3, height: 6))
  }

  @Test func rejectsEmptySizesAndBadFractions() {
    for (mode, size) in [(CropAndScale.scaleFill, 0), (.centerCrop(fraction: 0), 4)] {
      #expect(throws: ImageDecodingError.self) {
        try mode.layout(sourceWidth: 4, sourceHeight: 4, inputWidth: size, inputHeight: 4)
      }
    }
    for fraction in [-0.5, 1.5, Double.nan, Double.infinity] {
      let error = #expect(throws: ImageDecodingError.self) {
        try CropAndScale.centerCrop(fraction: fraction).layout(
          sourceWidth: 4, sourceHeight: 4, inputWidth: 4, inputHeight: 4)
      }
      #expect(error?.code == .invalidArgument)
    }
    #expect(throws: ImageDecodingError.self) {
      try CropAndScale.scaleFit.layout(
        sourceWidth: 1 << 30, sourceHeight: 4, inputWidth: 4, inputHeight: 4)
    }
  }
}
