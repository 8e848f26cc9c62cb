import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

@Suite struct StateDictFuzzTests {
  private func fuzz(_ bytes: [UInt8], seed: UInt64, flips: Int) -> FuzzOutcomes {
    var generator = SeededGenerator(seed: seed)
    var outcomes = FuzzOutcomes()
    for length in 0..<bytes.count {
      outcomes.record { _ = try StateDict(serializedBytes: Array(bytes[..<length])) }
    }
    for _ in 0..<flips {
      var mutated = bytes
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        mutated[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
          in: 1...255, using: &generator)
      }
      outcomes.record { _ = try StateDict(serializedBytes: mutated) }
    }
    return outcomes
  }

  /// Every truncation and 500 seeded byte flips of each fixture end in a value or a typed error.
  @Test func survivesMutationsOfBothLayouts() {
    for (layout, bytes) in [
      ("legacy", CheckpointFixture.legacy()), ("zip", CheckpointFixture.zip()),
    ] {
      let outcomes = fuzz(bytes, seed: 0x5054_4831, flips: 500)
      print(".pth \(layout) fuzz (\(bytes.count) bytes): \(outcomes)")
      #expect(outcomes.foreignErrors.isEmpty)
      #expect(outcomes.errors >= bytes.count)
    }
  }

  /// Seeded mutations of the real Lite0 checkpoint's pickles, when it has been fetched.
  @Test(
    .requiresGeneratedFixture(
      SharedModels.lite0Checkpoint, madeBy: "Scripts/fetch-default-model.sh"))
  func survivesMutationsOfTheLite0Checkpoint() throws {
    let path = SharedModels.lite0Checkpoint.path
    let bytes = try FileBytesForTests.read(path)
    var generator = SeededGenerator(seed: 0x4C49_5445)
    var outcomes = FuzzOutcomes()
    // The pickles occupy the first 47,176 bytes; the storages follow.
    for _ in 0..<10 {
      let length = Int.random(in: 0..<bytes.count, using: &generator)
      outcomes.record { _ = try StateDict(serializedBytes: Array(bytes[..<length])) }
    }
    for _ in 0..<20 {
      var mutated = bytes
      mutated[Int.random(in: 0..<47_176, using: &generator)] ^= UInt8.random(
        in: 1...255, using: &generator)
      outcomes.record { _ = try StateDict(serializedBytes: mutated) }
    }
    print(".pth Lite0 fuzz: \(outcomes)")
    #expect(outcomes.foreignErrors.isEmpty)
    #expect(outcomes.errors >= 10)
  }
}
