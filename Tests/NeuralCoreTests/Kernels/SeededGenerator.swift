/// A deterministic SplitMix64 generator, so randomized kernel tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  mutating func floats(_ count: Int) -> [Float] {
    (0..<count).map { _ in Float.random(in: -1...1, using: &self) }
  }
}

/// The largest violation of `|actual - expected| <= tolerance * max(|expected|, 1)`, or `nil`.
func relativeMismatch(_ actual: [Float], _ expected: [Float], tolerance: Float = 1e-5) -> String? {
  guard actual.count == expected.count else {
    return "\(actual.count) values, expected \(expected.count)"
  }
  for (index, (a, e)) in zip(actual, expected).enumerated() {
    if a.isNaN && e.isNaN { continue }
    if !(abs(a - e) <= tolerance * max(abs(e), 1)) { return "element \(index): \(a) vs \(e)" }
  }
  return nil
}
