import Foundation
import TestSupport
import Testing

/// The `vision-catalog` executable as tools outside the package drive it (Docs/Design.md
/// section 6): exit codes, one-line errors on standard error, and JSON on standard output.
@Suite struct CommandLineTests {
  struct Outcome {
    let status: Int32
    let output: String
    let error: String
  }

  /// The built executable, next to the test bundle in the build products folder.
  static let executable: URL? = {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("vision-catalog")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder.deleteLastPathComponent()
    }
    return nil
  }()

  func run(_ arguments: [String]) throws -> Outcome {
    guard let executable = Self.executable else {
      throw CommandLineTestError(description: "the vision-catalog executable is not built")
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = ODataTestServer.packageRoot
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }

  func errorLines(_ outcome: Outcome) -> [Substring] {
    outcome.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
  }

  @Test func usageErrorsExitWithTwo() throws {
    for arguments in [[], ["frobnicate"], ["decode"], ["products"], ["find", "a", "b"]] {
      let outcome = try run(arguments)
      #expect(outcome.status == 2, "\(arguments)")
    }
  }

  @Test func everySubcommandHasHelp() throws {
    for name in ["decode", "preprocess", "infer", "classify", "find", "products"] {
      let outcome = try run([name, "--help"])
      #expect(outcome.status == 0, "\(name)")
      #expect(outcome.output.contains("USAGE: vision-catalog \(name)"), "\(name)")
    }
  }

  @Test func exactIsAFlagOfClassifyAndFind() throws {
    for name in ["classify", "find"] {
      let help = try run([name, "--help"])
      #expect(help.output.contains("--exact"), "\(name)")
      let misspelt = try run([name, "Samples/coffee.png", "--exactly"])
      #expect(misspelt.status == 2, "\(name)")
    }
    // `find` reads the photo before loading the model: a file that is not an image fails at
    // once, after `--exact` was accepted.
    let outcome = try run(["find", "Package.swift", "--exact"])
    #expect(outcome.status == 1, "\(outcome.error)")
  }

  @Test func aFileThatIsNotAnImageIsOneLineAndExitOne() throws {
    let notImage = ODataTestServer.packageRoot.appendingPathComponent("README.md").path
    for arguments in [["find", notImage], ["decode", notImage, "--out", "/tmp/x.png"]] {
      let outcome = try run(arguments)
      #expect(outcome.status == 1, "\(arguments)")
      #expect(errorLines(outcome).count == 1, "\(arguments): \(outcome.error)")
      #expect(outcome.error.contains("not a PNG or JPEG"), "\(outcome.error)")
    }
  }

  @Test func unknownCategoryAndDownServerAreOneLineAndExitOne() throws {
    let unknown = try run(["products", "--category", "Unicorns"])
    #expect(unknown.status == 1)
    #expect(errorLines(unknown).count == 1)
    #expect(unknown.error.contains("no category named 'Unicorns'"))
    let down = try run(["products", "--category", "Mice", "--service", "http://127.0.0.1:1/odata/"])
    #expect(down.status == 1)
    #expect(errorLines(down).count == 1)
    #expect(down.error.contains("unreachable"))
  }

  @Test func productsJSONHasTheContractKeys() throws {
    let outcome = try run(["products", "--category", "Mugs", "--json"])
    #expect(outcome.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    #expect(Set(object.keys) == ["category", "query", "products"])
    #expect((object["products"] as? [Any])?.isEmpty == false)
  }

  @Test(
    .enabled(if: DefaultModelFixture.model != nil, "needs the default model"),
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
  func findJSONAgainstTheV4ServerMatchesTheContract() throws {
    let root = try ODataTestServers.shared(.v4).serviceRoot.absoluteString
    let outcome = try run(["find", "Samples/coffee.png", "--service", root, "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
    for key in ["image", "classifications", "timingsMs", "category", "query", "products"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    let image = try #require(object["image"] as? [String: Any])
    #expect(Set(image.keys) == ["width", "height", "orientation"])
    let first = try #require((object["classifications"] as? [[String: Any]])?.first)
    #expect(Set(first.keys) == ["label", "index", "confidence"])
    #expect(object["category"] as? String == "Espresso Machines")
    #expect((object["query"] as? String)?.hasPrefix(root) == true)
  }
}

/// A command-line test that could not run the executable.
struct CommandLineTestError: Error, CustomStringConvertible {
  let description: String
}
