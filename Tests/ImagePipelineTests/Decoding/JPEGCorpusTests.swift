import Foundation
import ImagePipeline
import TestSupport
import Testing

/// JPEG conformance: the generated corpus against Pillow's decodings, and, when ../shared is
/// present, jpeg-decoder's reference decodes, the IJG test images and Pillow's test files.
@Suite(.enabled(if: DecodingCorpus.isAvailable, Comment(rawValue: DecodingCorpus.skipReason)))
struct JPEGCorpusTests {
  let decoder = ImageDecoder()

  /// A JPEG and another decoder's pixels for it.
  struct ReferencedFile: Sendable, CustomTestStringConvertible {
    /// Where the reference pixels are.
    enum Reference: Sendable {
      /// Pillow's decoding as a `.npy` RGB array (the generated corpus).
      case npy(URL)
      /// A PNG (jpeg-decoder's reftests).
      case png(URL)
      /// A binary PPM (the IJG's testorig.ppm).
      case ppm(URL)
    }

    var name: String
    var url: URL
    var reference: Reference
    /// The decoded pixel format, when known.
    var format: PixelFormat?
    /// The size, when known.
    var width: Int?
    var height: Int?

    var testDescription: String { name }
  }

  /// A file that must be refused as unsupported.
  struct UnsupportedFile: Sendable, CustomTestStringConvertible {
    var name: String
    var url: URL
    /// Words the error message must hold.
    var message: String?

    var testDescription: String { name }
  }

  /// Two files of one picture, decoded and compared.
  struct FilePair: Sendable, CustomTestStringConvertible {
    var name: String
    var first: URL
    var second: URL
    /// The size both must have, when known.
    var width: Int?
    var height: Int?

    var testDescription: String { name }
  }

  /// A file to decode, by name.
  struct NamedFile: Sendable, CustomTestStringConvertible {
    var name: String
    var url: URL

    var testDescription: String { name }
  }

  static let generatedReferenced = DecodingCorpus.jpeg.map { fixture in
    ReferencedFile(
      name: fixture.file, url: DecodingCorpus.url(fixture.file),
      reference: .npy(DecodingCorpus.url(fixture.reference)),
      format: fixture.components == 1 ? .gray : .rgb, width: fixture.width,
      height: fixture.height)
  }

  static let reftests = CorpusLocator.files(
    in: "jpeg-decoder-tests/reftest/images", recursive: true
  )
  .filter { $0.pathExtension == "jpg" && !$0.path.contains("/lossless/") }

  /// jpeg-decoder's reftests with a reference PNG, and the IJG's testorig.jpg with its pixels.
  ///
  /// libjpeg-turbo's default IDCT and fancy upsampling land within a few levels of the IJG's
  /// pixels. One bound for all, including the files jpeg-decoder lists in `disabled.list` (YCCK
  /// and the tiny Mozilla sizes): libjpeg-turbo matches their references closely too.
  static let sharedReferenced: [ReferencedFile] = {
    guard CorpusLocator.isAvailable else { return [] }
    let withPNG = reftests.compactMap { file -> ReferencedFile? in
      let png = file.deletingPathExtension().appendingPathExtension("png")
      guard FileManager.default.fileExists(atPath: png.path) else { return nil }
      return ReferencedFile(name: file.lastPathComponent, url: file, reference: .png(png))
    }
    let testorig = ReferencedFile(
      name: "testorig.jpg", url: CorpusLocator.url("libjpeg-turbo-testimages/testorig.jpg"),
      reference: .ppm(CorpusLocator.url("libjpeg-turbo-testimages/testorig.ppm")), format: .rgb,
      width: 227, height: 149)
    return withPNG + [testorig]
  }()

  static let losslessFiles = CorpusLocator.files(
    in: "jpeg-decoder-tests/reftest/images/lossless", recursive: true, extensions: ["jpg"])

  /// Lossless, hierarchical and 12-bit frames: the generated ones are valid files with the
  /// frame marker or precision changed, so libjpeg-turbo refuses them at the frame header.
  static let unsupported: [UnsupportedFile] =
    DecodingCorpus.malformed.filter { $0.expect == "unsupported" }.map {
      UnsupportedFile(name: $0.file, url: DecodingCorpus.url($0.file), message: $0.message)
    }
    + losslessFiles.map {
      UnsupportedFile(name: $0.lastPathComponent, url: $0, message: "lossless")
    }
    + (CorpusLocator.isAvailable
      ? [
        UnsupportedFile(
          name: "monkey12.jpg", url: CorpusLocator.url("libjpeg-turbo-testimages/monkey12.jpg"),
          message: nil)
      ] : [])

  /// Files that code the same quantized coefficients, one with Huffman and one with arithmetic
  /// coding, so their decodes are identical: jpegtran's recodings and the IJG's pair.
  static let arithmeticPairs: [FilePair] =
    DecodingCorpus.jpeg.compactMap { fixture in
      fixture.huffmanCoded.map {
        FilePair(
          name: fixture.file, first: DecodingCorpus.url($0),
          second: DecodingCorpus.url(fixture.file), width: fixture.width, height: fixture.height)
      }
    }
    + (CorpusLocator.isAvailable
      ? [
        FilePair(
          name: "testimgint.jpg and testimgari.jpg",
          first: CorpusLocator.url("libjpeg-turbo-testimages/testimgint.jpg"),
          second: CorpusLocator.url("libjpeg-turbo-testimages/testimgari.jpg"), width: 227,
          height: 149)
      ] : [])

  /// A CMYK file and an RGB encoding of the same picture.
  static let cmykPairs: [FilePair] =
    DecodingCorpus.jpeg.compactMap { fixture in
      fixture.sameSceneAs.map {
        FilePair(
          name: fixture.file, first: DecodingCorpus.url(fixture.file),
          second: DecodingCorpus.url($0), width: fixture.width, height: fixture.height)
      }
    }
    + (CorpusLocator.isAvailable
      ? [
        FilePair(
          name: "pil_sample_cmyk.jpg",
          first: CorpusLocator.url("pillow-tests-images/pil_sample_cmyk.jpg"),
          second: CorpusLocator.url("pillow-tests-images/pil_sample_rgb.jpg"))
      ] : [])

  /// Odd but readable files: extra markers, junk before a marker, missing Huffman tables, bytes
  /// after EOI, damaged entropy data, 16-bit quantization tables, MPO and ICC oddities.
  static let oddFiles: [NamedFile] =
    (DecodingCorpus.malformed.filter { $0.decodes && $0.file.hasSuffix(".jpg") }.map(\.file)
    + ["jpeg/ycc420-markers.jpg"])
    .map { NamedFile(name: $0, url: DecodingCorpus.url($0)) }
    + (CorpusLocator.isAvailable
      ? [
        "pil_sample_cmyk.jpg", "hopper_16bit_qtables.jpg", "junk_jpeg_header.jpg",
        "jpeg_ff00_header.jpg", "icc-after-SOF.jpg", "app13-multiple.jpg", "icc_profile_big.jpg",
        "hopper_gray.jpg", "sugarshack_bad_mpo_header.jpg", "truncated_app14.jpg",
      ].map { NamedFile(name: $0, url: CorpusLocator.url("pillow-tests-images/\($0)")) } : [])

  /// Files cut short after the frame header: an error by default, an image when allowed.
  static let truncatedFiles: [NamedFile] =
    DecodingCorpus.malformed.filter { $0.decodesWhenLenient == true }.map {
      NamedFile(name: $0.file, url: DecodingCorpus.url($0.file))
    }
    + (CorpusLocator.isAvailable
      ? ["truncated_jpeg.jpg", "ultrahdr.jpg"].map {
        NamedFile(name: $0, url: CorpusLocator.url("pillow-tests-images/\($0)"))
      } : [])

  @Test func theCorporaAreComplete() {
    let cases = DecodingCorpus.jpeg
    #expect(Set(cases.map(\.components)) == [1, 3, 4])
    #expect(Set(cases.map(\.subsampling)).isSuperset(of: ["4:4:4", "4:2:2", "4:2:0"]))
    #expect(cases.contains { $0.progressive } && cases.contains { !$0.progressive })
    #expect(Self.generatedReferenced.count >= 25)
    #expect(Self.arithmeticPairs.count >= 3)
    #expect(Self.unsupported.count >= 5)
    #expect(Self.truncatedFiles.count >= 5)
    if CorpusLocator.isAvailable {
      #expect(Self.reftests.count >= 35)
      #expect(Self.losslessFiles.count >= 10)
    }
    print(
      "JPEG conformance: \(Self.generatedReferenced.count) generated and"
        + " \(Self.sharedReferenced.count) shared files with reference pixels")
  }

  @Test(arguments: generatedReferenced + sharedReferenced)
  func lossyFilesMatchTheirReferenceDecodes(_ file: ReferencedFile) throws {
    let image = try decoder.decode(contentsOf: file.url)
    if let format = file.format {
      #expect(image.format == format)
    }
    if let width = file.width, let height = file.height {
      #expect(image.width == width && image.height == height)
    }
    let reference: [UInt8]
    switch file.reference {
    case .npy(let url):
      let array = try PixelComparison.reference(url)
      #expect(array.shape == [image.height, image.width, 3])
      reference = try #require(array.bytes)
    case .png(let url):
      let decoded = try decoder.decode(contentsOf: url)
      #expect(decoded.width == image.width && decoded.height == image.height)
      reference = PixelComparison.rgb(decoded)
    case .ppm(let url):
      let source = try Data(contentsOf: url)
      let header = Array("P6\n\(image.width) \(image.height)\n255\n".utf8)
      #expect(Array(source.prefix(header.count)) == header)
      reference = Array(source.dropFirst(header.count))
    }
    let difference = try #require(
      PixelComparison.difference(PixelComparison.rgb(image), reference),
      "the size differs from the reference's")
    print("\(file.name) \(image.format) \(difference)")
    #expect(difference.maximum <= 3 && difference.mean <= 0.25, "\(difference)")
  }

  @Test(arguments: unsupported)
  func unsupportedFramesAreTypedUnsupported(_ file: UnsupportedFile) {
    let error = #expect(throws: ImageDecodingError.self) {
      try decoder.decode(contentsOf: file.url)
    }
    #expect(error?.code == .unsupported, "\(String(describing: error))")
    if let message = file.message {
      #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }
    print("\(file.name): \(error.map { "\($0)" } ?? "decoded")")
  }

  @Test(arguments: arithmeticPairs)
  func arithmeticCodingDecodesAsHuffmanCodingDoes(_ pair: FilePair) throws {
    let huffman = try decoder.decode(contentsOf: pair.first)
    let arithmetic = try decoder.decode(contentsOf: pair.second)
    #expect(huffman == arithmetic)
    if let width = pair.width, let height = pair.height {
      #expect(huffman.width == width && huffman.height == height)
    }
  }

  @Test(arguments: cmykPairs)
  func cmykDecodesAsRGBCloseToTheSamePicture(_ pair: FilePair) throws {
    let cmyk = try decoder.decode(contentsOf: pair.first)
    let rgb = try decoder.decode(contentsOf: pair.second)
    #expect(cmyk.format == .rgb)
    let difference = try #require(PixelComparison.difference(cmyk.pixels, rgb.pixels))
    print("\(pair.name) vs \(pair.second.lastPathComponent): \(difference)")
    #expect(difference.mean < 10)
  }

  @Test(arguments: oddFiles)
  func oddFilesDecode(_ file: NamedFile) throws {
    let image = try decoder.decode(contentsOf: file.url)
    #expect(image.width > 0 && image.height > 0)
  }

  @Test(arguments: truncatedFiles)
  func truncatedFilesNeedLenientMode(_ file: NamedFile) throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try decoder.decode(contentsOf: file.url)
    }
    #expect(error?.code == .truncated, "\(String(describing: error))")
    let lenient = ImageDecoder(options: DecodingOptions(allowsTruncatedJPEG: true))
    let image = try lenient.decode(contentsOf: file.url)
    #expect(image.width > 0)
  }
}
