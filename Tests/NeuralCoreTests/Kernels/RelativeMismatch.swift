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
