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
}
