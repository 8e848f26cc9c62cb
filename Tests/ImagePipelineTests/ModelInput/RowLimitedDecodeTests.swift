import Foundation
import Testing

// For ImageDecoder.decode(_:firstRows:), which firstRowsLeavesTheRestZero tests.
@testable import ImagePipeline

/// `tensor(fromEncoded:)` decodes a reduced JPEG only down to the last row the resampler reads:
/// the input must be exactly the one the whole reduced decode gives, in every orientation and
/// crop mode, and rows must really be skipped where the crop allows it.
@Suite struct RowLimitedDecodeTests {
  /// The fewest top stored rows of `image` that decide `input`: inverting every level below
  /// them leaves the input unchanged, and inverting from one row higher changes it.
  ///
  /// Found by bisection from the outputs alone, not from the row spans the library computes, so
  /// it checks that bound rather than restating it. Bisection is valid because the resampler
  /// reads a contiguous band of rows: keeping more rows never changes the input again.
  static func rowsDeciding(
    _ input: (RasterImage) throws -> ModelInput, of image: RasterImage
  ) throws -> Int {
    let whole = try input(image)
    let rowBytes = image.width * image.format.channelCount
    func decides(_ rows: Int) throws -> Bool {
      var pixels = image.pixels
      // 255 - v never equals v, so every level below `rows` changes.
      for index in (rows * rowBytes)..<pixels.count { pixels[index] = 255 - pixels[index] }
      let poisoned = try RasterImage(
        width: image.width, height: image.height, format: image.format, pixels: pixels,
        orientation: image.orientation)
      return try input(poisoned) == whole
    }
    var low = 0
    var high = image.height
    while low < high {
      let middle = (low + high) / 2
      if try decides(middle) { high = middle } else { low = middle + 1 }
    }
    return low
  }

  @Test(arguments: ImageOrientation.allCases)
  func skippedRowsNeverChangeTheInput(_ orientation: ImageOrientation) throws {
    let jpeg = JPEGScalingTests.jpeg
    let decoder = ImageDecoder()
    let info = try decoder.inspect(jpeg)
    var skipped = 0
    for spec in JPEGScalingTests.specs {
      let label = "\(orientation) \(spec.cropAndScale)"
      let scale = try spec.jpegScale(for: info, orientation: orientation)
      var options = DecodingOptions()
      options.jpegScale = scale
      let reduced = try ImageDecoder(options: options).decode(jpeg)
      func input(_ image: RasterImage) throws -> ModelInput {
        try spec.tensor(
          from: image, orientation: orientation, decodedAt: scale, storedWidth: info.width,
          storedHeight: info.height)
      }
      let whole = try input(reduced)
      let limited = try spec.tensor(fromEncoded: Data(jpeg), orientation: orientation)
      #expect(limited == whole, "\(label) at 1/\(scale.denominator)")
      let needed = try Self.rowsDeciding(input, of: reduced)
      let photo = try spec.decode(Data(jpeg), orientation: orientation)
      #expect(photo.scale == scale)
      #expect(
        photo.decodedRows == needed,
        "\(label): decoded \(photo.decodedRows) rows, the input depends on \(needed)")
      #expect(try spec.tensor(fromDecoded: photo) == whole)
      if needed < reduced.height { skipped += 1 }
    }
    #expect(skipped >= 2, "\(orientation): no spec left rows undecoded")
  }

  @Test func aFileWithoutEOIIsDecodedWhole() throws {
    // Cut inside the entropy data: the rows the crop needs may all be there, but the file is
    // truncated, and a truncated JPEG is an error by default.
    let jpeg = JPEGScalingTests.jpeg
    let spec = JPEGScalingTests.specs[5]
    let truncated = Data(jpeg[0..<(jpeg.count - 600)])
    #expect(throws: ImageDecodingError.self) { try spec.tensor(fromEncoded: truncated) }
  }

  @Test func firstRowsLeavesTheRestZero() throws {
    let jpeg = Data(JPEGScalingTests.jpeg)
    let full = try ImageDecoder().decode(jpeg)
    let top = try ImageDecoder().decode(jpeg, firstRows: 100)
    let rowBytes = full.width * 3
    #expect(top.width == full.width && top.height == full.height)
    #expect(top.pixels[0..<(100 * rowBytes)] == full.pixels[0..<(100 * rowBytes)])
    #expect(top.pixels[(100 * rowBytes)...].allSatisfy { $0 == 0 })
  }
}
