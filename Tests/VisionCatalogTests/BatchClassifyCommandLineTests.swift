import Foundation
import Testing

/// `vision-catalog classify` over several photos or a folder: JSON Lines, a failing photo as an
/// error line that does not stop the batch, and `--shard i/n` splitting the photos exactly.
@Suite(.serialized) struct BatchClassifyCommandLineTests: CommandLineRunning {
  /// One JSON line: the photo and either its classifications or its error.
  struct Line: Decodable {
    struct Item: Decodable, Equatable {
      var label: String
      var index: Int
    }
    /// Absent from a single photo's `--json` object.
    var file: String?
    var classifications: [Item]?
    var error: String?
  }

  /// A folder with three copies of the sample photo (one in a subfolder), a truncated PNG and
  /// a text file, which is not a photo and is left out.
  static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-batch-\(UUID().uuidString)")
    let sub = folder.appendingPathComponent("more")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    let photo = try Data(contentsOf: URL(fileURLWithPath: "Samples/coffee.png"))
    try photo.write(to: folder.appendingPathComponent("a.png"))
    try photo.write(to: folder.appendingPathComponent("c.PNG"))
    try photo.write(to: sub.appendingPathComponent("b.png"))
    try photo.prefix(400).write(to: folder.appendingPathComponent("broken.png"))
    try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.txt"))
    return folder
  }

  static func lines(_ output: String) throws -> [Line] {
    try output.split(separator: "\n").map {
      try JSONDecoder().decode(Line.self, from: Data($0.utf8))
    }
  }

  @Test func aFolderGivesOneLinePerPhotoAndGoesOnPastAFailure() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let single = try await run(["classify", "Samples/coffee.png", "--top", "3", "--json"])
    let expected = try JSONDecoder().decode(Line.self, from: Data(single.output.utf8))
    let batch = try await run(["classify", folder.path, "--top", "3"])
    #expect(batch.status == 1, "\(batch.error)")
    #expect(batch.error.contains("error: 1 of 4 photos could not be classified"), "\(batch.error)")
    let lines = try Self.lines(batch.output)
    let names = lines.map { String(($0.file ?? "").dropFirst(folder.path.count + 1)) }
    #expect(names == ["a.png", "broken.png", "c.PNG", "more/b.png"])
    for line in lines where line.file?.hasSuffix("broken.png") == false {
      #expect(line.error == nil && line.classifications == expected.classifications, "\(line)")
    }
    let broken = try #require(lines.first { $0.file?.hasSuffix("broken.png") == true })
    #expect(broken.classifications == nil)
    #expect(broken.error?.contains("truncated") == true, "\(String(describing: broken.error))")
  }

  @Test func shardsCoverEveryPhotoOnceInOrder() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let whole = try await Self.lines(run(["classify", folder.path, "--top", "1"]).output)
    #expect(whole.count == 4)
    var joined: [String?] = []
    for index in 1...3 {
      let outcome = try await run(["classify", folder.path, "--top", "1", "--shard", "\(index)/3"])
      joined += try Self.lines(outcome.output).map(\.file)
    }
    #expect(joined == whole.map(\.file))
    let single = try await run(["classify", "Samples/coffee.png", "--shard", "1/1", "--top", "1"])
    #expect(single.status == 0, "\(single.error)")
    #expect(try Self.lines(single.output).count == 1)
  }

  @Test func aBadShardIsAUsageError() async throws {
    for shard in ["0/3", "4/3", "1/0", "x", "1/2/3"] {
      let outcome = try await run(["classify", "Samples/coffee.png", "--shard", shard])
      #expect(outcome.status == 2, "\(shard): \(outcome.error)")
    }
  }
}
