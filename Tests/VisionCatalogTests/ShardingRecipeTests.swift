import Foundation
import TestSupport
import Testing

/// The sharding recipe of `Samples/Sharding` (Docs/Sharding.md): a folder classified in three
/// shards, by GNU parallel and by the Slurm job array's script, and joined by `merge.sh`, gives
/// every photo once and the lines of one unsharded `vision-catalog classify DIR`.
///
/// Six small photos keep the debug build's runs short (about half a second per photo with the
/// default model); every run uses one thread, so the scores are the same bit for bit.
@Suite(.serialized) struct ShardingRecipeTests: CommandLineRunning {
  static let scripts = CorpusLocator.packageRoot.appendingPathComponent("Samples/Sharding")

  /// Whether `parallel` on the `PATH` is GNU parallel (moreutils ships another program by that
  /// name).
  static let hasGNUParallel: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["parallel", "--version"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0
      && String(decoding: data, as: UTF8.self).hasPrefix("GNU parallel")
  }()

  /// A folder of six photos (two in a subfolder), plus a hidden photo and a text file that
  /// `classify` leaves out, and a scratch folder beside it for the shards.
  struct Workspace {
    let root: URL
    var photos: URL { root.appendingPathComponent("photos") }
    var shards: URL { root.appendingPathComponent("shards") }
    /// The paths `classify` prints for the photos, in its order.
    let expected: [String]

    init() throws {
      root = FileManager.default.temporaryDirectory
        .appendingPathComponent("vision-catalog-sharding-\(UUID().uuidString)")
      let photos = root.appendingPathComponent("photos")
      try FileManager.default.createDirectory(
        at: photos.appendingPathComponent("more"), withIntermediateDirectories: true)
      let sample = CorpusLocator.packageRoot.appendingPathComponent("Samples/coffee.png")
      // The shared reference photos when present (small ones), else copies of the sample.
      let names = ["cat.jpg", "hopper.jpg", "shuttle.jpg", "more/dog.jpg", "more/pizza.jpg"]
      for name in names {
        let source = SharedData.url("models/photos/\(URL(fileURLWithPath: name).lastPathComponent)")
        try FileManager.default.copyItem(
          at: source ?? sample, to: photos.appendingPathComponent(name))
      }
      try FileManager.default.copyItem(at: sample, to: photos.appendingPathComponent("coffee.png"))
      try FileManager.default.copyItem(at: sample, to: photos.appendingPathComponent(".hidden.png"))
      try Data("not a photo".utf8).write(to: photos.appendingPathComponent("notes.txt"))
      expected = (names + ["coffee.png"]).map { photos.appendingPathComponent($0).path }.sorted()
    }

    func remove() {
      try? FileManager.default.removeItem(at: root)
    }
  }

  /// A JSON line without its `timingsMs`, which differ from run to run, keys sorted.
  static func comparable(_ line: Substring) throws -> String {
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    object["timingsMs"] = nil
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// The `file` of each JSON line.
  static func files(_ output: String) throws -> [String] {
    try output.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return try #require(object?["file"] as? String, "\(line)")
    }
  }

  /// One unsharded run over the folder: the lines a merge must reproduce.
  func unsharded(_ workspace: Workspace) async throws -> [String] {
    let whole = try await run(["classify", workspace.photos.path, "--top", "3", "--threads", "1"])
    #expect(whole.status == 0, "\(whole.error)")
    #expect(try Self.files(whole.output) == workspace.expected)
    return try whole.output.split(separator: "\n").map(Self.comparable)
  }

  /// Merges the shards with `merge.sh` and checks each photo is there once, in the unsharded
  /// run's lines and order.
  func expectMergeEquals(_ whole: [String], _ workspace: Workspace) async throws {
    let merged = try await run(
      program: Self.scripts.appendingPathComponent("merge.sh"),
      [workspace.shards.path, workspace.photos.path])
    #expect(merged.status == 0, "\(merged.error)")
    let files = try Self.files(merged.output)
    #expect(files.count == workspace.expected.count, "\(files)")
    #expect(Set(files).count == files.count, "a photo appears twice: \(files)")
    #expect(Set(files) == Set(workspace.expected))
    #expect(try merged.output.split(separator: "\n").map(Self.comparable) == whole)
  }

  @Test(
    .enabled(
      if: ShardingRecipeTests.hasGNUParallel,
      "GNU parallel is not installed (Scripts/setup --test-tools installs it): skipped"))
  func gnuParallelShardsMergeToTheUnshardedRun() async throws {
    let workspace = try Workspace()
    defer { workspace.remove() }
    let whole = try await unsharded(workspace)
    let executable = try #require(commandLineExecutable)
    let sharded = try await run(
      program: Self.scripts.appendingPathComponent("classify-parallel.sh"),
      [workspace.photos.path, "3", workspace.shards.path, "--top", "3"],
      environment: ["VISION_CATALOG": executable.path, "JOBS": "2", "THREADS": "1"])
    #expect(sharded.status == 0, "\(sharded.error)")
    let log = try String(
      contentsOf: workspace.shards.appendingPathComponent("parallel.log"), encoding: .utf8)
    #expect(log.split(separator: "\n").count == 4, "a header and one line per shard: \(log)")
    try await expectMergeEquals(whole, workspace)

    // The merge refuses a shard counted twice and a shard that is missing.
    let merge = Self.scripts.appendingPathComponent("merge.sh")
    let second = workspace.shards.appendingPathComponent("shard-2.jsonl")
    let extra = workspace.shards.appendingPathComponent("shard-4.jsonl")
    try FileManager.default.copyItem(at: second, to: extra)
    let twice = try await run(program: merge, [workspace.shards.path, workspace.photos.path])
    #expect(twice.status == 1 && twice.error.contains("more than once"), "\(twice.error)")
    try FileManager.default.removeItem(at: extra)
    try FileManager.default.removeItem(at: second)
    let missing = try await run(program: merge, [workspace.shards.path, workspace.photos.path])
    #expect(missing.status == 1, "\(missing.error)")
    #expect(missing.error.contains("shard 2 of 3 is missing"), "\(missing.error)")
    #expect(missing.error.contains("photos of \(workspace.photos.path) are missing"))
  }

  /// There is no Slurm controller here, so the job array's script runs as its tasks would:
  /// three times, with the variables `sbatch --array=1-3 --cpus-per-task=1` gives each task.
  @Test func slurmArrayTasksMergeToTheUnshardedRun() async throws {
    let workspace = try Workspace()
    defer { workspace.remove() }
    let whole = try await unsharded(workspace)
    let executable = try #require(commandLineExecutable)
    for task in 1...3 {
      let outcome = try await run(
        program: Self.scripts.appendingPathComponent("classify-slurm.sbatch"),
        [workspace.photos.path, workspace.shards.path, "--top", "3"],
        environment: [
          "VISION_CATALOG": executable.path, "SLURM_ARRAY_JOB_ID": "7",
          "SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_COUNT": "3",
          "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_STEP": "1",
          "SLURM_CPUS_PER_TASK": "1",
        ])
      #expect(outcome.status == 0, "task \(task): \(outcome.error)")
    }
    try await expectMergeEquals(whole, workspace)
  }
}
