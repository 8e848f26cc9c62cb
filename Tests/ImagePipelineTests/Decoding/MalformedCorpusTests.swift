import Foundation
import ImagePipeline
import TestSupport
import Testing

/// Broken, crash and fuzz inputs: each must end in an image or a typed error.
///
/// Each file must finish quickly and with bounded memory; times and peak memory are printed, not
/// asserted.
@Suite(.enabled(if: CorpusLocator.isAvailable, Comment(rawValue: CorpusLocator.skipReason)))
struct MalformedCorpusTests {
  let decoder = ImageDecoder()

  /// The outcome of decoding one file.
  private enum Outcome: Hashable, CustomStringConvertible {
    case decoded
    case failed(ImageDecodingError.Code)

    var description: String {
      switch self {
      case .decoded: "decoded"
      case .failed(let code): "\(code)"
      }
    }
  }

  /// Decodes every file, recording outcome and time, and prints a summary.
  private func run(_ label: String, _ files: [URL]) -> [String: Outcome] {
    var outcomes: [String: Outcome] = [:]
    var counts: [Outcome: Int] = [:]
    var slowest = (name: "", seconds: 0.0)
    let clock = ContinuousClock()
    for file in files {
      let relative = String(file.path.dropFirst(CorpusLocator.testdata.path.count + 1))
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
      "\(label): \(files.count) files: \(summary); slowest \(slowest.name) "
        + "\(String(format: "%.1f", slowest.seconds * 1000)) ms; "
        + "peak RSS \(String(format: "%.0f", ResourceUsage.peakResidentMebibytes)) MiB")
    return outcomes
  }

  @Test func imagePNGRegressionsAndFuzzCorpus() {
    let tests = CorpusLocator.files(in: "image-png-tests-fuzz/tests", recursive: true)
      .filter { $0.pathExtension == "png" }
    // 8 `x_` files that must fail and 19 regressions that must decode, so a missing folder
    // cannot pass as an empty loop.
    #expect(tests.count == 27)
    #expect(tests.filter { $0.lastPathComponent.hasPrefix("x_") }.count == 8)
    let outcomes = run("image-png tests", tests)
    for (name, outcome) in outcomes {
      let file = (name as NSString).lastPathComponent
      if file.hasPrefix("x_") {
        #expect(outcome != .decoded, "\(name) must be rejected")
      } else {
        #expect(outcome == .decoded, "\(name) must decode, got \(outcome)")
      }
    }
    let fuzz =
      CorpusLocator.files(in: "image-png-tests-fuzz/fuzz/corpus/decode")
      + CorpusLocator.files(in: "image-png-tests-fuzz/fuzz/corpus/buf_independent/regressions")
    #expect(fuzz.count == 1_215)
    _ = run("image-png fuzz corpus", fuzz)
  }

  @Test func jpegDecoderCrashTests() {
    let files = CorpusLocator.files(in: "jpeg-decoder-tests/crashtest", recursive: true)
      .filter { $0.lastPathComponent != "README.md" }
    #expect(files.count == 111)
    let outcomes = run("jpeg-decoder crashtest", files)
    #expect(
      outcomes["jpeg-decoder-tests/crashtest/images/extraneous-bytes-after-sos.jpg"] == .decoded)
    let icc = CorpusLocator.files(in: "jpeg-decoder-tests/icc")
    #expect(icc.count == 5)
    for (name, outcome) in run("jpeg-decoder icc", icc) {
      #expect(outcome == .decoded, "\(name)")
    }
  }

  @Test func pillowTestImages() {
    let files = CorpusLocator.files(in: "pillow-tests-images")
      .filter { !["LICENSE", "SOURCE.md"].contains($0.lastPathComponent) }
    let outcomes = run("pillow-tests-images", files)
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
}
