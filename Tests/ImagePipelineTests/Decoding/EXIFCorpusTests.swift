import Foundation
import ImagePipeline
import TestSupport
import Testing

/// EXIF orientation on real files: the generated corpus (every orientation in JPEG and PNG,
/// both byte orders, eXIf chunks and ImageMagick's text chunk, invalid values, broken blocks)
/// against Pillow's upright decodings, and, when ../shared is present, recurser's
/// exif-orientation-examples, Pillow's test images and the PNG corpora's eXIf files.
@Suite(.enabled(if: DecodingCorpus.isAvailable, Comment(rawValue: DecodingCorpus.skipReason)))
struct EXIFCorpusTests {
  let decoder = ImageDecoder()

  /// A file with an orientation to read and what it must show once turned upright.
  struct OrientedFile: Sendable, CustomTestStringConvertible {
    /// What the upright image is compared with.
    enum Upright: Sendable {
      /// Pillow's upright decoding as a `.npy` RGB array: exact for a lossless file, within
      /// the JPEG bound otherwise.
      case pixels(URL, lossless: Bool)
      /// Another file of the same scene stored upright: the same display size and a mean
      /// difference of at most 6, sampled every `step` pixels.
      case sameScene(URL, step: Int)
      /// The upright size only.
      case size(width: Int, height: Int)
    }

    var name: String
    var url: URL
    /// The orientation to report; `nil` to print it only (files whose tag is XMP-only or odd).
    var orientation: ImageOrientation?
    var upright: Upright?

    var testDescription: String { name }
  }

  /// A file whose EXIF block is broken: the frame decodes at its header's size and the
  /// orientation is the default.
  struct BrokenFile: Sendable, CustomTestStringConvertible {
    var name: String
    var url: URL
    var width: Int
    var height: Int
    /// The stored pixels as another decoder gives them, when known.
    var reference: URL?

    var testDescription: String { name }
  }

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

  static let generatedOriented = DecodingCorpus.orientation.filter { $0.broken == nil }.map {
    OrientedFile(
      name: $0.file, url: DecodingCorpus.url($0.file),
      orientation: ImageOrientation(exifValue: $0.orientation),
      upright: .pixels(DecodingCorpus.url($0.reference), lossless: $0.lossless))
  }

  static let exampleFiles = CorpusLocator.files(
    in: "exif-orientation-examples", extensions: ["jpg"])

  /// recurser's photos stored with each tag 0-8, landscape and portrait, each against its
  /// `_1` file; Pillow's hopper with tags 2-8 against hopper.jpg; a 2 x 1 file with tag 8;
  /// a tag beside an empty GPS IFD; and PNGs with eXIf chunks, ImageMagick's `Raw profile type
  /// exif` text (tag 3) and XMP-only tags (not read).
  static let sharedOriented: [OrientedFile] = {
    guard CorpusLocator.isAvailable else { return [] }
    var files: [OrientedFile] = []
    for kind in ["Landscape", "Portrait"] {
      let reference = CorpusLocator.url("exif-orientation-examples/\(kind)_1.jpg")
      for tag in 0...8 {
        files.append(
          OrientedFile(
            name: "\(kind)_\(tag).jpg",
            url: CorpusLocator.url("exif-orientation-examples/\(kind)_\(tag).jpg"),
            orientation: ImageOrientation(exifValue: tag),
            upright: .sameScene(reference, step: 3)))
      }
    }
    let hopper = CorpusLocator.url("pillow-tests-images/hopper.jpg")
    for tag in 2...8 {
      files.append(
        OrientedFile(
          name: "hopper_orientation_\(tag).jpg",
          url: CorpusLocator.url("pillow-tests-images/hopper_orientation_\(tag).jpg"),
          orientation: ImageOrientation(exifValue: tag), upright: .sameScene(hopper, step: 1)))
    }
    func pillow(_ name: String, _ orientation: ImageOrientation?, _ upright: OrientedFile.Upright?)
      -> OrientedFile
    {
      OrientedFile(
        name: name, url: CorpusLocator.url("pillow-tests-images/\(name)"),
        orientation: orientation, upright: upright)
    }
    files += [
      pillow("orientation_rectangle.jpg", .left, .size(width: 1, height: 2)),
      pillow("empty_gps_ifd.jpg", .right, nil),
      pillow("exif_imagemagick_orientation.png", .down, nil),
      pillow("xmp_tags_orientation.png", nil, nil), pillow("exif.png", nil, nil),
      pillow("exif_imagemagick.png", nil, nil),
      // exif2c08's IFD0 holds Orientation = 1 among six other tags.
      OrientedFile(
        name: "exif2c08.png", url: CorpusLocator.url("pngsuite/exif2c08.png"), orientation: .up,
        upright: nil),
      OrientedFile(
        name: "F-exif-chunk-early.png",
        url: CorpusLocator.url("image-png-tests-fuzz/tests/bugfixes/F-exif-chunk-early.png"),
        orientation: nil, upright: nil),
    ]
    return files
  }()

  static let generatedBroken = DecodingCorpus.orientation.filter { $0.broken != nil }.map {
    BrokenFile(
      name: $0.file, url: DecodingCorpus.url($0.file), width: $0.width, height: $0.height,
      reference: DecodingCorpus.url($0.reference))
  }

  /// Pillow's files with broken or odd EXIF, with the stored size of each main frame.
  ///
  /// README section 3 lists them as "broken or odd EXIF where the image still decodes"; each
  /// size is the main frame's SOF0 header, read with Python's `struct` (the SOF of an embedded
  /// thumbnail excluded). Every Orientation entry these files carry holds 1
  /// (exif-72dpi-int.jpg's as a signed long), and the rest have none or an IFD too broken to
  /// read, so any other orientation would be read out of garbage.
  static let sharedBroken: [BrokenFile] =
    CorpusLocator.isAvailable
    ? [
      ("invalid-exif.jpg", 200, 200), ("invalid-exif-without-x-resolution.jpg", 300, 200),
      ("hopper_bad_exif.jpg", 500, 500), ("exif_typeerror.jpg", 800, 531),
      ("exif_gps_typeerror.jpg", 800, 531), ("broken_exif_dpi.jpg", 100, 100),
      ("truncated_exif_dpi.jpg", 480, 640), ("multiple_exif.jpg", 1, 1),
      ("exif-ifd-offset.jpg", 200, 200), ("exif-dpi-zerodivision.jpg", 200, 200),
      ("exif-200dpcm.jpg", 200, 200), ("exif-72dpi-int.jpg", 500, 450), ("exif_gps.jpg", 8, 8),
      ("no-dpi-in-exif.jpg", 200, 200), ("photoshop-200dpi-broken.jpg", 200, 200),
      ("truncated_app14.jpg", 100, 100),
    ].map {
      BrokenFile(
        name: $0.0, url: CorpusLocator.url("pillow-tests-images/\($0.0)"), width: $0.1,
        height: $0.2)
    } : []

  @Test func theCorporaAreComplete() {
    let cases = DecodingCorpus.orientation
    for fileExtension in ["jpg", "png"] {
      for value in 1...8 {
        #expect(
          cases.contains { $0.exifOrientation == value && $0.file.hasSuffix(".\(fileExtension)") },
          "orientation \(value) in a .\(fileExtension) file")
      }
    }
    #expect(cases.contains { $0.exifOrientation == nil && $0.broken == nil })
    #expect(
      cases.contains { $0.exifOrientation == 0 } && cases.contains { $0.exifOrientation == 9 })
    #expect(Self.generatedBroken.count >= 5)
    if CorpusLocator.isAvailable {
      #expect(Self.exampleFiles.count == 18)
    }
    print(
      "EXIF: \(Self.generatedOriented.count) generated and \(Self.sharedOriented.count) shared"
        + " oriented files, \(Self.generatedBroken.count + Self.sharedBroken.count) broken blocks")
  }

  @Test(arguments: generatedOriented + sharedOriented)
  func filesReportTheirOrientationAndTurnUpright(_ file: OrientedFile) throws {
    let image = try decoder.decode(contentsOf: file.url)
    #expect(try decoder.inspect(contentsOf: file.url).orientation == image.orientation)
    guard let orientation = file.orientation else {
      print("\(file.name): \(image.orientation)")
      return
    }
    #expect(image.orientation == orientation)
    switch file.upright {
    case .pixels(let url, let lossless):
      let reference = try PixelComparison.reference(url)
      let upright = image.oriented()
      #expect(reference.shape == [upright.height, upright.width, 3])
      let bytes = try #require(reference.bytes)
      let difference = try #require(
        PixelComparison.difference(PixelComparison.rgb(upright), bytes),
        "the upright size differs from the reference's")
      print("\(file.name): \(image.orientation), \(difference)")
      if lossless {
        #expect(difference.maximum == 0, "\(difference)")
      } else {
        #expect(difference.maximum <= 3 && difference.mean <= 0.25, "\(difference)")
      }
    case .sameScene(let url, let step):
      let reference = try decoder.decode(contentsOf: url)
      #expect(image.displayWidth == reference.width && image.displayHeight == reference.height)
      let difference = try #require(meanDifference(image, reference, step: step))
      print("\(file.name): \(image.orientation), mean difference \(difference)")
      #expect(
        difference <= 6, "oriented, it differs from \(url.lastPathComponent) by \(difference)")
    case .size(let width, let height):
      #expect(image.displayWidth == width && image.displayHeight == height)
    case nil:
      break
    }
  }

  @Test(arguments: generatedBroken + sharedBroken)
  func brokenEXIFStillDecodes(_ file: BrokenFile) throws {
    let image = try decoder.decode(contentsOf: file.url)
    #expect(
      image.width == file.width && image.height == file.height, "\(image.width)x\(image.height)")
    #expect(image.orientation == .up)
    let info = try decoder.inspect(contentsOf: file.url)
    #expect(info.width == file.width && info.height == file.height && info.orientation == .up)
    if let url = file.reference {
      let bytes = try #require(try PixelComparison.reference(url).bytes)
      let difference = try #require(PixelComparison.difference(PixelComparison.rgb(image), bytes))
      #expect(difference.maximum <= 3 && difference.mean <= 0.25, "\(difference)")
    }
  }
}
