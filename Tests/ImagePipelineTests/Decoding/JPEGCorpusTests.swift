import Foundation
import ImagePipeline
import TestSupport
import Testing

/// JPEG conformance: jpeg-decoder's reference decodes and the IJG test images.
@Suite(.enabled(if: CorpusLocator.isAvailable, Comment(rawValue: CorpusLocator.skipReason)))
struct JPEGCorpusTests {
  let decoder = ImageDecoder()

  @Test func lossyReftestsMatchTheirReferencePNGs() throws {
    let files = CorpusLocator.files(in: "jpeg-decoder-tests/reftest/images", recursive: true)
      .filter { $0.pathExtension == "jpg" && !$0.path.contains("/lossless/") }
    #expect(files.count >= 35)
    var report: [String] = []
    for file in files {
      let name = file.lastPathComponent
      let referenceURL = file.deletingPathExtension().appendingPathExtension("png")
      guard FileManager.default.fileExists(atPath: referenceURL.path) else { continue }
      let image: RasterImage
      do {
        image = try decoder.decode(contentsOf: file)
      } catch {
        Issue.record("\(name) did not decode: \(error)")
        continue
      }
      let reference = try decoder.decode(contentsOf: referenceURL)
      #expect(reference.width == image.width && reference.height == image.height, "\(name)")
      guard
        let difference = PixelComparison.difference(
          PixelComparison.rgb(image), PixelComparison.rgb(reference))
      else {
        Issue.record("\(name): size differs from its reference")
        continue
      }
      report.append("\(name) \(image.format) \(difference)")
      // One bound for all, including the files jpeg-decoder lists in `disabled.list` (YCCK and
      // the tiny Mozilla sizes): libjpeg-turbo matches their references closely too.
      #expect(difference.maximum <= 3 && difference.mean <= 0.25, "\(name): \(difference)")
    }
    print("jpeg-decoder reftests:\n  " + report.joined(separator: "\n  "))
  }

  @Test func losslessFilesAreTypedUnsupported() throws {
    let files = CorpusLocator.files(
      in: "jpeg-decoder-tests/reftest/images/lossless", recursive: true, extensions: ["jpg"])
    #expect(files.count >= 10)
    for file in files {
      let error = #expect(throws: ImageDecodingError.self, "\(file.lastPathComponent)") {
        try decoder.decode(contentsOf: file)
      }
      #expect(
        error?.code == .unsupported, "\(file.lastPathComponent): \(String(describing: error))")
      #expect(error?.message.contains("lossless") == true)
    }
  }

  @Test func ijgTestImagesDecode() throws {
    let folder = "libjpeg-turbo-testimages"
    let original = try decoder.decode(contentsOf: CorpusLocator.url("\(folder)/testorig.jpg"))
    #expect(original.width == 227 && original.height == 149 && original.format == .rgb)
    let huffman = try decoder.decode(contentsOf: CorpusLocator.url("\(folder)/testimgint.jpg"))
    let arithmetic = try decoder.decode(contentsOf: CorpusLocator.url("\(folder)/testimgari.jpg"))
    // Both files code the same quantized coefficients, one with Huffman and one with arithmetic
    // coding, so their decodes are identical.
    #expect(huffman == arithmetic)
    #expect(huffman.width == 227 && huffman.height == 149)

    // testorig.ppm holds the IJG's pixels for testorig.jpg; libjpeg-turbo's default IDCT and
    // fancy upsampling land within a few levels of them.
    let source = try Data(contentsOf: CorpusLocator.url("\(folder)/testorig.ppm"))
    let header = Array("P6\n227 149\n255\n".utf8)
    #expect(Array(source.prefix(header.count)) == header)
    let difference = try #require(
      PixelComparison.difference(original.pixels, Array(source.dropFirst(header.count))))
    print("testorig.jpg vs testorig.ppm: \(difference)")
    #expect(difference.maximum <= 3 && difference.mean <= 0.25)

    let error = #expect(throws: ImageDecodingError.self) {
      try decoder.decode(contentsOf: CorpusLocator.url("\(folder)/monkey12.jpg"))
    }
    #expect(error?.code == .unsupported)
    print("monkey12.jpg: \(error.map { "\($0)" } ?? "decoded")")
  }

  @Test func pillowCMYKAndOddHeadersDecode() throws {
    let names = [
      "pil_sample_cmyk.jpg", "hopper_16bit_qtables.jpg", "junk_jpeg_header.jpg",
      "jpeg_ff00_header.jpg", "icc-after-SOF.jpg", "app13-multiple.jpg", "icc_profile_big.jpg",
      "hopper_gray.jpg", "sugarshack_bad_mpo_header.jpg", "truncated_app14.jpg",
    ]
    for name in names {
      let image = try decoder.decode(contentsOf: CorpusLocator.url("pillow-tests-images/\(name)"))
      #expect(image.width > 0, "\(name)")
    }
    let cmyk = try decoder.decode(
      contentsOf: CorpusLocator.url("pillow-tests-images/pil_sample_cmyk.jpg"))
    let rgb = try decoder.decode(
      contentsOf: CorpusLocator.url("pillow-tests-images/pil_sample_rgb.jpg"))
    #expect(cmyk.format == .rgb)
    let difference = try #require(PixelComparison.difference(cmyk.pixels, rgb.pixels))
    print("pil_sample_cmyk.jpg vs pil_sample_rgb.jpg: \(difference)")
    #expect(difference.mean < 10)
  }

  @Test func truncatedPillowFilesNeedLenientMode() throws {
    let lenient = ImageDecoder(options: DecodingOptions(allowsTruncatedJPEG: true))
    for name in ["truncated_jpeg.jpg", "ultrahdr.jpg"] {
      let url = CorpusLocator.url("pillow-tests-images/\(name)")
      let error = #expect(throws: ImageDecodingError.self, "\(name)") {
        try decoder.decode(contentsOf: url)
      }
      #expect(error?.code == .truncated, "\(name): \(String(describing: error))")
      let image = try lenient.decode(contentsOf: url)
      #expect(image.width > 0)
    }
  }
}
