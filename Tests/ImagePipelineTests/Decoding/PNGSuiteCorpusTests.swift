import Foundation
import ImagePipeline
import TestSupport
import Testing

/// PNG conformance: the generated corpus (every colour type and bit depth, plain and Adam7, tRNS,
/// every filter type and zlib level) against pypng's decodings, and, when ../shared is present,
/// PngSuite against the mirror's RGBA JSON decodings; damaged files of both rejected.
@Suite(.enabled(if: DecodingCorpus.isAvailable, Comment(rawValue: DecodingCorpus.skipReason)))
struct PNGSuiteCorpusTests {
  let decoder = ImageDecoder()

  /// A valid PNG and another decoder's RGBA pixels for it.
  struct ReferencedFile: Sendable, CustomTestStringConvertible {
    /// Where the reference pixels are.
    enum Reference: Sendable {
      /// pypng's decoding as a `.npy` array (the generated corpus).
      case npy(URL)
      /// The PngSuite mirror's JSON array, with its `_to8` variant for a 16-bit file; `nil`
      /// for `PngSuite.png` (the logo), which has none.
      case json(URL?, toEight: URL?)
    }

    var name: String
    var url: URL
    var reference: Reference
    /// The file's bit depth, when the corpus states it.
    var bitDepth: Int?

    var testDescription: String { name }
  }

  /// A PNG that must be rejected.
  struct CorruptFile: Sendable, CustomTestStringConvertible {
    var name: String
    var url: URL
    /// The ``ImageDecodingError`` code it must give; `nil` when any will do.
    var code: String?

    var testDescription: String { name }
  }

  static let generatedValid = DecodingCorpus.png.map { fixture in
    ReferencedFile(
      name: fixture.file, url: DecodingCorpus.url(fixture.file),
      reference: .npy(DecodingCorpus.url(fixture.reference)), bitDepth: fixture.bitDepth)
  }

  static let pngSuiteValid = CorpusLocator.files(in: "pngsuite", extensions: ["png"])
    .filter { !$0.lastPathComponent.hasPrefix("x") }
    .map { file in
      let name = file.deletingPathExtension().lastPathComponent
      func json(_ name: String) -> URL? {
        let url = CorpusLocator.url("pngsuite/json/\(name).json")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
      }
      return ReferencedFile(
        name: "pngsuite/\(file.lastPathComponent)", url: file,
        reference: .json(json(name), toEight: json("\(name)_to8")))
    }

  static let generatedCorrupt = DecodingCorpus.malformed
    .filter { $0.file.hasSuffix(".png") && !$0.decodes }
    .map { CorruptFile(name: $0.file, url: DecodingCorpus.url($0.file), code: $0.expect) }

  static let pngSuiteCorrupt = CorpusLocator.files(in: "pngsuite", extensions: ["png"])
    .filter { $0.lastPathComponent.hasPrefix("x") }
    .map { CorruptFile(name: "pngsuite/\($0.lastPathComponent)", url: $0, code: nil) }

  @Test func theCorporaAreComplete() {
    let cases = DecodingCorpus.png
    let depths: [Int: [Int]] = [
      0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]
    for (colorType, allowed) in depths.sorted(by: { $0.key < $1.key }) {
      for depth in allowed {
        for interlaced in [false, true] {
          #expect(
            cases.contains {
              $0.colorType == colorType && $0.bitDepth == depth && $0.interlaced == interlaced
            }, "colour type \(colorType) at \(depth) bits, interlaced \(interlaced)")
        }
      }
    }
    for colorType in [0, 2, 3] {
      #expect(cases.contains { $0.colorType == colorType && $0.transparency }, "\(colorType)")
    }
    #expect(
      Set(cases.map(\.filters))
        == ["none", "sub", "up", "average", "paeth", "cycle", "adaptive"])
    #expect(Set(cases.map(\.zlibLevel)) == Set(0...9))
    #expect(Self.generatedCorrupt.count >= 50)
    if CorpusLocator.isAvailable {
      #expect(Self.pngSuiteValid.count == 162)
      #expect(Self.pngSuiteCorrupt.count == 14)
    }
    print(
      "PNG conformance: \(Self.generatedValid.count) generated and \(Self.pngSuiteValid.count)"
        + " PngSuite valid files, \(Self.generatedCorrupt.count) generated and"
        + " \(Self.pngSuiteCorrupt.count) PngSuite corrupt files")
  }

  @Test(arguments: generatedValid + pngSuiteValid)
  func validFilesMatchTheReferenceDecodes(_ file: ReferencedFile) throws {
    let image = try decoder.decode(contentsOf: file.url)
    let info = try decoder.inspect(contentsOf: file.url)
    #expect(info.width == image.width && info.height == image.height)
    #expect(info.pixelFormat == image.format)
    if let bitDepth = file.bitDepth {
      #expect(info.bitDepth == bitDepth)
    }
    let rgba = PixelComparison.rgba(image).map(Int.init)
    let exact: [Int]
    var toEight: [Int]?
    switch file.reference {
    case .npy(let url):
      let reference = try PixelComparison.reference(url)
      #expect(reference.shape == [image.height, image.width, 4])
      exact = reference.samples
    case .json(let url, let toEightURL):
      guard let url else {
        #expect(file.url.lastPathComponent == "PngSuite.png", "no JSON reference")
        return
      }
      exact = try JSONDecoder().decode([Int].self, from: Data(contentsOf: url))
      toEight = try toEightURL.map {
        try JSONDecoder().decode([Int].self, from: Data(contentsOf: $0))
      }
    }
    if info.bitDepth == 16 {
      // The 16-bit reference holds the file's samples: rounding them to 8 bits is exactly what
      // libpng's scale_16 does. The PngSuite mirror's own `_to8` files round inconsistently, so
      // they are held to within one level.
      let rounded = exact.map { ($0 * 255 + 32_895) >> 16 }
      #expect(rgba == rounded, "differs from its rounded 16-bit reference")
      if let toEight {
        #expect(toEight.count == rgba.count)
        let maximum = zip(rgba, toEight).map { abs($0 - $1) }.max() ?? 0
        print("\(file.name) differs from its _to8 reference by at most \(maximum)")
        #expect(maximum <= 1, "differs from its _to8 reference by \(maximum)")
      }
    } else {
      #expect(rgba == exact, "differs from its reference")
    }
  }

  @Test(arguments: generatedCorrupt + pngSuiteCorrupt)
  func corruptFilesAreRejected(_ file: CorruptFile) {
    let error = #expect(throws: ImageDecodingError.self) {
      try decoder.decode(contentsOf: file.url)
    }
    if let code = file.code {
      #expect(error?.code.description == code, "\(String(describing: error))")
    }
    #expect(error?.message.isEmpty == false)
    print("\(file.name): \(error.map { "\($0)" } ?? "decoded")")
  }
}
