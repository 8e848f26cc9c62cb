import Foundation
import ImagePipeline
import TestSupport
import Testing

/// EXIF orientation on real files: recurser's exif-orientation-examples and Pillow's test images.
@Suite(.enabled(if: CorpusLocator.isAvailable, Comment(rawValue: CorpusLocator.skipReason)))
struct EXIFCorpusTests {
  let decoder = ImageDecoder()

  /// The mean absolute difference of two images after ``RasterImage/oriented(_:)`` turns each
  /// upright, sampled on a grid; `nil` when the upright sizes differ.
  private func meanDifference(_ first: RasterImage, _ second: RasterImage, step: Int) -> Double? {
    let a = first.oriented()
    let b = second.oriented()
    guard a.width == b.width, a.height == b.height, a.format == b.format else { return nil }
    let channels = a.format.channelCount
    var total = 0
    var count = 0
    for y in stride(from: 0, to: a.height, by: step) {
      for x in stride(from: 0, to: a.width, by: step) {
        for channel in 0..<channels {
          let index = (y * a.width + x) * channels + channel
          total += abs(Int(a.pixels[index]) - Int(b.pixels[index]))
          count += 1
        }
      }
    }
    return Double(total) / Double(max(count, 1))
  }

  @Test(arguments: ["Landscape", "Portrait"])
  func orientationExamplesReportTheirTag(kind: String) throws {
    let reference = try decoder.decode(
      contentsOf: CorpusLocator.url("exif-orientation-examples/\(kind)_1.jpg"))
    var report: [String] = []
    for tag in 0...8 {
      let url = CorpusLocator.url("exif-orientation-examples/\(kind)_\(tag).jpg")
      let image = try decoder.decode(contentsOf: url)
      let expected = ImageOrientation(exifValue: tag)
      #expect(image.orientation == expected, "\(kind)_\(tag)")
      #expect(try decoder.inspect(contentsOf: url).orientation == expected)
      #expect(image.displayWidth == reference.width && image.displayHeight == reference.height)
      let difference = try #require(meanDifference(image, reference, step: 3), "\(kind)_\(tag)")
      report.append("\(kind)_\(tag): \(image.orientation), mean difference \(difference)")
      #expect(difference <= 6, "\(kind)_\(tag) oriented differs from \(kind)_1 by \(difference)")
    }
    print(report.joined(separator: "\n"))
  }

  @Test func pillowHopperOrientations() throws {
    let reference = try decoder.decode(
      contentsOf: CorpusLocator.url("pillow-tests-images/hopper.jpg"))
    for tag in 2...8 {
      let image = try decoder.decode(
        contentsOf: CorpusLocator.url("pillow-tests-images/hopper_orientation_\(tag).jpg"))
      #expect(image.orientation.rawValue == UInt8(tag))
      let difference = try #require(meanDifference(image, reference, step: 1), "\(tag)")
      #expect(difference <= 6, "hopper_orientation_\(tag): \(difference)")
    }
    let rectangle = try decoder.decode(
      contentsOf: CorpusLocator.url("pillow-tests-images/orientation_rectangle.jpg"))
    #expect(rectangle.orientation == .left)
    #expect(rectangle.displayWidth == 1 && rectangle.displayHeight == 2)
    let gps = try decoder.inspect(
      contentsOf: CorpusLocator.url("pillow-tests-images/empty_gps_ifd.jpg"))
    #expect(gps.orientation == .right)
  }

  /// Pillow's files with broken or odd EXIF (README section 3: "broken or odd EXIF where the
  /// image still decodes"), with the stored size of each main frame's SOF0 header, read with
  /// Python's `struct` (the SOF of an embedded thumbnail excluded).
  static let brokenEXIF: [(name: String, width: Int, height: Int)] = [
    ("invalid-exif.jpg", 200, 200), ("invalid-exif-without-x-resolution.jpg", 300, 200),
    ("hopper_bad_exif.jpg", 500, 500), ("exif_typeerror.jpg", 800, 531),
    ("exif_gps_typeerror.jpg", 800, 531), ("broken_exif_dpi.jpg", 100, 100),
    ("truncated_exif_dpi.jpg", 480, 640), ("multiple_exif.jpg", 1, 1),
    ("exif-ifd-offset.jpg", 200, 200), ("exif-dpi-zerodivision.jpg", 200, 200),
    ("exif-200dpcm.jpg", 200, 200), ("exif-72dpi-int.jpg", 500, 450), ("exif_gps.jpg", 8, 8),
    ("no-dpi-in-exif.jpg", 200, 200), ("photoshop-200dpi-broken.jpg", 200, 200),
    ("truncated_app14.jpg", 100, 100),
  ]

  /// A broken EXIF block costs only its metadata.
  ///
  /// The frame decodes at its header's size and the orientation is the default. Every Orientation entry these files carry
  /// holds 1 (exif-72dpi-int.jpg's as a signed long), and the rest have none or an IFD too
  /// broken to read, so any other orientation would be read out of garbage.
  @Test(arguments: brokenEXIF)
  func brokenEXIFStillDecodes(_ file: (name: String, width: Int, height: Int)) throws {
    let url = CorpusLocator.url("pillow-tests-images/\(file.name)")
    let image = try decoder.decode(contentsOf: url)
    #expect(
      image.width == file.width && image.height == file.height, "\(image.width)x\(image.height)")
    #expect(image.orientation == .up)
    let info = try decoder.inspect(contentsOf: url)
    #expect(info.width == file.width && info.height == file.height && info.orientation == .up)
  }

  @Test func pngEXIfChunks() throws {
    let early = try decoder.decode(
      contentsOf: CorpusLocator.url("image-png-tests-fuzz/tests/bugfixes/F-exif-chunk-early.png"))
    let suite = try decoder.decode(contentsOf: CorpusLocator.url("pngsuite/exif2c08.png"))
    // exif2c08's IFD0 holds Orientation = 1 among six other tags.
    #expect(suite.orientation == .up)
    // ImageMagick keeps EXIF hex-encoded in a `Raw profile type exif` text chunk (tag 3).
    let magick = try decoder.decode(
      contentsOf: CorpusLocator.url("pillow-tests-images/exif_imagemagick_orientation.png"))
    #expect(magick.orientation == .down)
    // XMP orientation is not read.
    var report = ["F-exif-chunk-early.png: \(early.orientation)"]
    for name in ["xmp_tags_orientation.png", "exif.png", "exif_imagemagick.png"] {
      let image = try decoder.decode(contentsOf: CorpusLocator.url("pillow-tests-images/\(name)"))
      report.append("\(name): \(image.orientation)")
    }
    print(report.joined(separator: "\n"))
  }
}
