import Foundation
import TestSupport
import Testing

/// The `vision-catalog` executable as tools outside the package drive it (Docs/Design.md
/// section 6): exit codes, one-line errors on standard error, and JSON on standard output.
@Suite struct CommandLineTests: CommandLineRunning {
  @Test func usageErrorsExitWithTwo() async throws {
    for arguments in [[], ["frobnicate"], ["decode"], ["products"], ["find", "a", "b"]] {
      let outcome = try await run(arguments)
      #expect(outcome.status == 2, "\(arguments)")
    }
  }

  @Test func everySubcommandHasHelp() async throws {
    for name in ["decode", "preprocess", "infer", "classify", "find", "products"] {
      let outcome = try await run([name, "--help"])
      #expect(outcome.status == 0, "\(name)")
      #expect(outcome.output.contains("USAGE: vision-catalog \(name)"), "\(name)")
    }
  }

  @Test(
    .enabled(if: FormatFixtures.isAvailable, Comment(rawValue: FormatFixtures.skipReason)),
    arguments: ["heif/coffee.heic", "heif/coffee.avif", "heif/coffee.webp"])
  func aPhotoReencodedAsPhonesAndTheWebSendItKeepsItsTopLabel(file: String) async throws {
    let png = try await run(["classify", "Samples/coffee.png", "--top", "1"])
    let reencoded = try await run(
      ["classify", FormatFixtures.root.appendingPathComponent(file).path, "--top", "1"])
    #expect(png.status == 0 && reencoded.status == 0, "\(reencoded.error)")
    let label = { (outcome: CommandLineOutcome) in
      outcome.output.split(separator: "\n").first.map { $0.split(separator: " ").dropFirst(1) }
    }
    let expected = try #require(label(png))
    #expect(label(reencoded).map(Array.init) == Array(expected), "\(reencoded.output)")
    // The JSON names the format the photo was sniffed as.
    let json = try await run(
      ["classify", FormatFixtures.root.appendingPathComponent(file).path, "--json"])
    let format = file.hasSuffix(".heic") ? "heif" : String(file.split(separator: ".").last ?? "")
    #expect(json.output.contains("\"format\":\"\(format)\""), "\(json.output)")
  }

  @Test func exactIsAFlagOfClassifyAndFind() async throws {
    for name in ["classify", "find"] {
      let help = try await run([name, "--help"])
      #expect(help.output.contains("--exact"), "\(name)")
      let misspelt = try await run([name, "Samples/coffee.png", "--exactly"])
      #expect(misspelt.status == 2, "\(name)")
    }
    // `find` reads the photo before loading the model: a file that is not an image fails at
    // once, after `--exact` was accepted.
    let outcome = try await run(["find", "Package.swift", "--exact"])
    #expect(outcome.status == 1, "\(outcome.error)")
  }

  @Test func aFileThatIsNotAnImageIsOneLineAndExitOne() async throws {
    let notImage = ODataTestServer.packageRoot.appendingPathComponent("README.md").path
    for arguments in [["find", notImage], ["decode", notImage, "--out", "/tmp/x.png"]] {
      let outcome = try await run(arguments)
      #expect(outcome.status == 1, "\(arguments)")
      #expect(errorLines(outcome).count == 1, "\(arguments): \(outcome.error)")
      #expect(
        outcome.error.contains("not a PNG, JPEG, WebP, HEIF or AVIF file"), "\(outcome.error)")
    }
  }

  /// Docs/Design.md section 7.1: an unknown or unsupported `VISION_CATALOG_KERNELS` is exit 1
  /// with one line naming the sets this CPU supports, before any model work.
  @Test func anUnsupportedKernelSetIsOneLineAndExitOne() async throws {
    #if arch(arm64)
      let missing = "avx2"
    #else
      let missing = "neon"
    #endif
    for value in [missing, "sse9"] {
      let outcome = try await run(
        ["classify", "Samples/coffee.png"], environment: ["VISION_CATALOG_KERNELS": value])
      #expect(outcome.status == 1, "\(value)")
      let lines = errorLines(outcome)
      #expect(lines.count == 1, "\(value): \(outcome.error)")
      #expect(lines.first?.contains("VISION_CATALOG_KERNELS=\(value)") == true)
      #expect(lines.first?.contains("portable") == true, "names the supported sets")
    }
  }

  /// ONNX's own GRU node test: a valid model whose operator NeuralCore does not run.
  static let unsupportedModel = ODataTestServer.packageRoot
    .appendingPathComponent(".cache/onnx-node-tests/test_gru_defaults/model.onnx")

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: unsupportedModel.path),
      "needs ONNX's node tests (Scripts/onnx-node-tests/generate.sh)"))
  func aModelWithAnUnsupportedOperatorIsOneLineAndExitOne() async throws {
    let outcome = try await run([
      "infer", "--model", Self.unsupportedModel.path, "--input", "/nonexistent.npy", "--output",
      "/tmp/vision-catalog-unused.npy",
    ])
    #expect(outcome.status == 1)
    let lines = errorLines(outcome)
    #expect(lines.count == 1, "\(outcome.error)")
    #expect(
      lines.first?.contains("(GRU)") == true && lines.first?.contains("not supported") == true)
  }

  @Test func unknownCategoryAndDownServerAreOneLineAndExitOne() async throws {
    let unknown = try await run(["products", "--category", "Unicorns"])
    #expect(unknown.status == 1)
    #expect(errorLines(unknown).count == 1)
    #expect(unknown.error.contains("no category named 'Unicorns'"))
    let down = try await run([
      "products", "--category", "Mice", "--service", "http://127.0.0.1:1/odata/",
    ])
    #expect(down.status == 1)
    #expect(errorLines(down).count == 1)
    #expect(down.error.contains("unreachable"))
  }

  @Test func productsJSONHasTheContractKeys() async throws {
    let outcome = try await run(["products", "--category", "Mugs", "--json"])
    #expect(outcome.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    #expect(Set(object.keys) == ["category", "query", "products"])
    let product = try #require((object["products"] as? [[String: Any]])?.first)
    #expect(
      Set(product.keys)
        == ["productId", "name", "categoryName", "price", "currencyCode", "pictureUrl"])
  }

  @Test(.enabled(if: DefaultModelFixture.model != nil, "needs the default model"))
  func findReadsThePhotoOnce() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "find-once-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let photo = folder.appendingPathComponent("coffee.png")
    try FileManager.default.copyItem(
      at: ODataTestServer.packageRoot.appendingPathComponent("Samples/coffee.png"), to: photo)
    let opens = try FileOpenCounter(watching: photo)
    let outcome = try await run(["find", photo.path, "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    #expect(opens.opensSinceLastCall() == 1, "find must read the photo once")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    let timings = try #require(object["timingsMs"] as? [String: Double])
    #expect(
      Set(timings.keys) == [
        "decode", "preprocess", "inference", "classify", "catalog", "barcodes", "total",
      ])
    let crop = try #require(object["crop"] as? [String: Int])
    #expect(Set(crop.keys) == ["x", "y", "width", "height"])
  }

  @Test(
    .enabled(if: DefaultModelFixture.model != nil, "needs the default model"),
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
  func findJSONAgainstTheV4ServerMatchesTheContract() async throws {
    let root = try ODataTestServers.shared(.v4).serviceRoot.absoluteString
    let outcome = try await run(["find", "Samples/coffee.png", "--service", root, "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    for key in ["image", "classifications", "timingsMs", "category", "query", "products"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    let image = try #require(object["image"] as? [String: Any])
    #expect(Set(image.keys) == ["width", "height", "orientation", "format"])
    #expect(image["format"] as? String == "png")
    let first = try #require((object["classifications"] as? [[String: Any]])?.first)
    #expect(Set(first.keys) == ["label", "index", "confidence"])
    #expect(object["category"] as? String == "Espresso Machines")
    #expect((object["query"] as? String)?.hasPrefix(root) == true)
  }
}
