import Foundation
import Testing

/// `vision-catalog find --mapping FILE.json`: the model's labels mapped to categories without
/// code, and mapping files that cannot be used refused with one line.
@Suite struct MappingCommandLineTests: CommandLineRunning {
  struct Found: Decodable {
    struct Product: Decodable {
      var categoryName: String?
    }
    var category: String
    var products: [Product]
  }

  static func file(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-mapping-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: url)
    return url
  }

  @Test func aMappingChoosesTheCategory() async throws {
    // Without the file, the sample photo ("espresso") finds "Espresso Machines".
    let mapping = try Self.file(#"{"espresso": "Notebooks", "cup": "Notebooks"}"#)
    defer { try? FileManager.default.removeItem(at: mapping) }
    let outcome = try await run(["find", "Samples/coffee.png", "--mapping", mapping.path, "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    let found = try JSONDecoder().decode(Found.self, from: Data(outcome.output.utf8))
    #expect(found.category == "Notebooks")
    #expect(!found.products.isEmpty)
    #expect(found.products.allSatisfy { $0.categoryName == "Notebooks" })
  }

  @Test(arguments: [
    (#"{"espresso": 3}"#, "not a JSON object"),
    (#"["espresso"]"#, "not a JSON object"),
    (#"{"not a label": "Notebooks"}"#, "none of its 1 labels"),
  ])
  func aMappingThatCannotBeUsedIsOneLineAndExitOne(text: String, reason: String) async throws {
    let mapping = try Self.file(text)
    defer { try? FileManager.default.removeItem(at: mapping) }
    let outcome = try await run(["find", "Samples/coffee.png", "--mapping", mapping.path])
    #expect(outcome.status == 1)
    let errors = outcome.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(errors.count == 1 && errors[0].contains(reason), "\(outcome.error)")
  }

  @Test func aMissingMappingFileIsOneLineAndExitOne() async throws {
    let outcome = try await run([
      "find", "Samples/coffee.png", "--mapping", "/nonexistent/map.json",
    ])
    #expect(outcome.status == 1)
    #expect(outcome.error.contains("no such mapping file"), "\(outcome.error)")
  }
}
