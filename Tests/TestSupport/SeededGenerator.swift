/// A deterministic SplitMix64 generator, so randomized kernel tests repeat exactly.
public struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  /// Creates a generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// `count` floats drawn uniformly from -1...1.
  public mutating func floats(_ count: Int) -> [Float] {
    (0..<count).map { _ in Float.random(in: -1...1, using: &self) }
  }
}
