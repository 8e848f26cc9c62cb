import Foundation
import Testing

@testable import ImagePipeline

/// `tensor(fromEncoded:)` decodes a reduced JPEG only down to the last row the resampler reads:
/// the input must be exactly the one the whole reduced decode gives, in every orientation and
/// crop mode, and rows must really be skipped where the crop allows it.
@Suite struct RowLimitedDecodeTests {
  @Test(arguments: ImageOrientation.allCases)
  func skippedRowsNeverChangeTheInput(_ orientation: ImageOrientation) throws {
    let jpeg = JPEGScalingTests.jpeg
    let decoder = ImageDecoder()
    let info = try decoder.inspect(jpeg)
    var skipped = 0
    for spec in JPEGScalingTests.specs {
      let scale = try spec.jpegScale(for: info, orientation: orientation)
      var options = DecodingOptions()
      options.jpegScale = scale
      let reduced = try ImageDecoder(options: options).decode(jpeg)
      let whole = try spec.tensor(
        from: reduced, orientation: orientation, decodedAt: scale, storedWidth: info.width,
        storedHeight: info.height)
      let limited = try spec.tensor(fromEncoded: Data(jpeg), orientation: orientation)
      #expect(limited == whole, "\(orientation) \(spec.cropAndScale) at 1/\(scale.denominator)")
      let rows = try spec.place(
        storedWidth: info.width, storedHeight: info.height, applied: orientation
      ).reducedSpans(
        scale: scale, storedWidth: info.width, storedHeight: info.height,
        reducedWidth: reduced.width, reducedHeight: reduced.height
      ).down.range
      let photo = try spec.decode(Data(jpeg), orientation: orientation)
      #expect(photo.decodedRows == rows.upperBound && photo.scale == scale)
      #expect(try spec.tensor(fromDecoded: photo) == whole)
      if rows.upperBound < reduced.height { skipped += 1 }
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
