import Foundation

/// Softmax over the middle axis of a `[outer, axis, inner]` view.
enum Softmax {
  /// Normalizes each of the `outer × inner` lines of `length` values so it sums to one.
  @_optimize(speed)
  static func run(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outer: Int, length: Int,
    inner: Int
  ) {
    for block in 0..<outer {
      let base = block * length * inner
      for lane in 0..<inner {
        var maximum = -Float.infinity
        for index in 0..<length { maximum = max(maximum, input[base + index * inner + lane]) }
        var sum: Float = 0
        for index in 0..<length {
          let value = Foundation.exp(input[base + index * inner + lane] - maximum)
          output[base + index * inner + lane] = value
          sum += value
        }
        let scale = 1 / sum
        for index in 0..<length { output[base + index * inner + lane] *= scale }
      }
    }
  }

  /// The scalar reference, in double precision from the definition `exp(x) / sum(exp(x))`.
  static func reference(input: [Float], outer: Int, length: Int, inner: Int) -> [Float] {
    var output = [Float](repeating: 0, count: input.count)
    for block in 0..<outer {
      for lane in 0..<inner {
        let indices = (0..<length).map { block * length * inner + $0 * inner + lane }
        let maximum = indices.map { Double(input[$0]) }.max() ?? 0
        let total = indices.reduce(0.0) { $0 + Foundation.exp(Double(input[$1]) - maximum) }
        for index in indices {
          output[index] = Float(Foundation.exp(Double(input[index]) - maximum) / total)
        }
      }
    }
    return output
  }
}
