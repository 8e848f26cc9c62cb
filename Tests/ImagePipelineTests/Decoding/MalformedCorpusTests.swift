import Foundation
import ImagePipeline
import TestSupport
import Testing

/// Broken, crash and fuzz inputs: each must end in an image or a typed error.
///
/// The generated corpus's damaged files (truncations, CRC and header damage, bad lengths,
/// damaged compressed data) must each give the error the generator names, or decode with their
/// source's pixels when the damage is one readers tolerate; when ../shared is present, its
/// regression, crash and fuzz files are decoded too. Each file must finish quickly and with
/// bounded memory; times and peak memory are printed, not asserted.
@Suite(.enabled(if: DecodingCorpus.isAvailable, Comment(rawValue: DecodingCorpus.skipReason)))
struct MalformedCorpusTests {
  let decoder = ImageDecoder()

  /// The outcome of decoding one file.
  enum Outcome: Hashable, CustomStringConvertible {
    case decoded
    case failed(ImageDecodingError.Code)

    var description: String {
      switch self {
      case .decoded: "decoded"
      case .failed(let code): "\(code)"
      }
    }
  }

  /// Files decoded together, and the checks their outcomes must pass.
  struct FileSet: Sendable, CustomTestStringConvertible {
    var name: String
    /// The folder the outcomes' names are relative to.
    var base: URL
    var files: [URL]
    /// How many files the set must hold, so that a missing folder cannot pass as an empty loop;
    /// `nil` when the checks name the files they need.
    var expectedCount: Int?
    /// Checks the outcomes, keyed by path relative to ``base``.
    var check: @Sendable ([String: Outcome]) -> Void

    var testDescription: String { name }
  }

  /// The generated damaged files with one extension, each held to the manifest's outcome.
  private static func generated(_ name: String, extension fileExtension: String) -> FileSet {
    let cases = DecodingCorpus.malformed.filter { $0.file.hasSuffix(".\(fileExtension)") }
    let expected = Dictionary(uniqueKeysWithValues: cases.map { ($0.file, $0.expect) })
    return FileSet(
      name: name, base: DecodingCorpus.root,
      files: DecodingCorpus.files(in: "malformed", extensions: [fileExtension]),
      expectedCount: cases.count
    ) { outcomes in
      #expect(outcomes.count == expected.count)
      for (file, outcome) in outcomes {
        let wanted = expected[file]
        #expect(
          wanted == "decodes" ? outcome == .decoded : outcome.description == wanted,
          "\(file) must give \(wanted ?? "no file of that name"), got \(outcome)")
      }
    }
  }

  static let sets: [FileSet] = {
    let generatedSets = [
      generated("generated damaged PNGs", extension: "png"),
      generated("generated damaged JPEGs", extension: "jpg"),
    ]
    guard CorpusLocator.isAvailable else { return generatedSets }
    let base = CorpusLocator.testdata
    let imagePNGTests = CorpusLocator.files(in: "image-png-tests-fuzz/tests", recursive: true)
      .filter { $0.pathExtension == "png" }
    return generatedSets + [
      // 8 `x_` files that must fail and 19 regressions that must decode.
      FileSet(name: "image-png tests", base: base, files: imagePNGTests, expectedCount: 27) {
        outcomes in
        #expect(
          outcomes.keys.filter { ($0 as NSString).lastPathComponent.hasPrefix("x_") }.count == 8)
        for (name, outcome) in outcomes {
          if (name as NSString).lastPathComponent.hasPrefix("x_") {
            #expect(outcome != .decoded, "\(name) must be rejected")
          } else {
            #expect(outcome == .decoded, "\(name) must decode, got \(outcome)")
          }
        }
      },
      FileSet(
        name: "image-png fuzz corpus", base: base,
        files: CorpusLocator.files(in: "image-png-tests-fuzz/fuzz/corpus/decode")
          + CorpusLocator.files(in: "image-png-tests-fuzz/fuzz/corpus/buf_independent/regressions"),
        expectedCount: 1_215
      ) { _ in },
      FileSet(
        name: "jpeg-decoder crashtest", base: base,
        files: CorpusLocator.files(in: "jpeg-decoder-tests/crashtest", recursive: true)
          .filter { $0.lastPathComponent != "README.md" }, expectedCount: 111
      ) { outcomes in
        #expect(
          outcomes["jpeg-decoder-tests/crashtest/images/extraneous-bytes-after-sos.jpg"]
            == .decoded)
      },
      FileSet(
        name: "jpeg-decoder icc", base: base,
        files: CorpusLocator.files(in: "jpeg-decoder-tests/icc"), expectedCount: 5
      ) { outcomes in
        for (name, outcome) in outcomes {
          #expect(outcome == .decoded, "\(name)")
        }
      },
      FileSet(
        name: "pillow-tests-images", base: base,
        files: CorpusLocator.files(in: "pillow-tests-images")
          .filter { !["LICENSE", "SOURCE.md"].contains($0.lastPathComponent) },
        expectedCount: nil
      ) { MalformedCorpusTests.pillowChecks($0) },
    ]
  }()

  /// What Pillow's test images must give.
  private static func pillowChecks(_ outcomes: [String: Outcome]) {
    func outcome(_ name: String) -> Outcome? { outcomes["pillow-tests-images/\(name)"] }
    for name in [
      "broken.png", "broken_data_stream.png", "truncated_image.png", "truncated_end_chunk.png",
      "pngtest_bad.png.bin", "truncated_jpeg.jpg", "ultrahdr.jpg",
    ] {
      #expect(outcome(name) != nil && outcome(name) != .decoded, "\(name) must be rejected")
    }
    for name in ["hopper_idat_after_image_end.png", "padded_idat.png", "tRNS_null_1x1.png"] {
      #expect(outcome(name) == .decoded, "\(name) must decode")
    }
    // Both are valid images whose only flaw is in an ancillary chunk that the decoder skips
    // unparsed: an iCCP with an unknown compression method and three 2 MiB zTXt bombs.
    for name in ["unknown_compression_method.png", "png_decompression_dos.png"] {
      print("\(name): \(outcome(name).map { "\($0)" } ?? "missing")")
      #expect(outcome(name) != nil)
    }
    let undecoded = outcomes.filter { $0.value != .decoded && !$0.key.contains("truncated") }
    print("pillow-tests-images not decoded: \(undecoded.sorted { $0.key < $1.key })")
  }

  /// Decodes every file, recording outcome and time, and prints a summary.
  private func run(_ set: FileSet) -> [String: Outcome] {
    var outcomes: [String: Outcome] = [:]
    var counts: [Outcome: Int] = [:]
    var slowest = (name: "", seconds: 0.0)
    let clock = ContinuousClock()
    for file in set.files {
      let relative = String(file.path.dropFirst(set.base.path.count + 1))
      let start = clock.now
      let outcome: Outcome
      do {
        let data = try Data(contentsOf: file)
        _ = try decoder.decode(data)
        outcome = .decoded
      } catch let error as ImageDecodingError {
        outcome = .failed(error.code)
      } catch {
        Issue.record("\(relative): untyped error \(error)")
        continue
      }
      let elapsed = clock.now - start
      let seconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      if seconds > slowest.seconds { slowest = (relative, seconds) }
      outcomes[relative] = outcome
      counts[outcome, default: 0] += 1
    }
    let summary = counts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
      .joined(separator: ", ")
    print(
      "\(set.name): \(set.files.count) files: \(summary); slowest \(slowest.name) "
        + "\(String(format: "%.1f", slowest.seconds * 1000)) ms; "
        + "peak RSS \(String(format: "%.0f", ResourceUsage.peakResidentMebibytes)) MiB")
    return outcomes
  }

  @Test(arguments: sets)
  func filesEndInAnImageOrATypedError(_ set: FileSet) {
    if let count = set.expectedCount {
      #expect(set.files.count == count)
    }
    set.check(run(set))
  }

  static let tolerated = DecodingCorpus.malformed.filter { $0.decodes && $0.reference != nil }

  /// Damage a reader tolerates (a bad ancillary CRC, junk before a marker, missing standard
  /// Huffman tables, bytes after EOI) costs nothing: the pixels are the source's.
  @Test(arguments: tolerated)
  func toleratedDamageKeepsThePixels(_ fixture: DecodingCorpus.MalformedCase) throws {
    let image = try decoder.decode(contentsOf: DecodingCorpus.url(fixture.file))
    let referenceFile = try #require(fixture.reference)
    let reference = try PixelComparison.reference(DecodingCorpus.url(referenceFile))
    let isPNG = fixture.file.hasSuffix(".png")
    let pixels = isPNG ? PixelComparison.rgba(image) : PixelComparison.rgb(image)
    #expect(reference.shape == [image.height, image.width, isPNG ? 4 : 3])
    let bytes = try #require(reference.bytes)
    let difference = try #require(PixelComparison.difference(pixels, bytes))
    print("\(fixture.file) (\(fixture.damage)): \(difference)")
    if isPNG {
      #expect(difference.maximum == 0, "\(difference)")
    } else {
      #expect(difference.maximum <= 3 && difference.mean <= 0.25, "\(difference)")
    }
  }
}
