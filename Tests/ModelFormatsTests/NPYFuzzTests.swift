import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// Every truncation and 300 seeded byte flips of a small `.npy` end in a value or a typed error.
@Test func npySurvivesMutations() throws {
  let bytes = NPYFile.encode(try Tensor(shape: [2, 3, 4], scalars: (0..<24).map(Float.init)))
  var generator = SeededGenerator(seed: 0x4E50_5931)
  var outcomes = FuzzOutcomes()
  for length in 0..<bytes.count {
    outcomes.record { _ = try NPYFile.decode(Array(bytes[..<length])) }
  }
  for round in 0..<300 {
    var mutated = bytes
    // Most flips land in the 128-byte header, where they change structure rather than values.
    let region = round % 3 == 0 ? bytes.count : 128
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      mutated[Int.random(in: 0..<region, using: &generator)] ^= UInt8.random(
        in: 1...255, using: &generator)
    }
    outcomes.record { _ = try NPYFile.decode(mutated) }
  }
  print(".npy fuzz: \(outcomes)")
  #expect(outcomes.foreignErrors.isEmpty)
  #expect(outcomes.errors >= bytes.count)
}
