import CNative
import Foundation

/// Softmax and its relatives over the middle axis of a `[outer, axis, inner]` view.
enum Softmax {
  /// What each line becomes.
  enum Kind: Sendable {
    /// `exp(x - max) / sum(exp(x - max))` (ONNX `Softmax`).
    case softmax
    /// `x - max - log(sum(exp(x - max)))` (ONNX `LogSoftmax`).
    case logSoftmax
    /// 1 at the first maximum of the line, 0 elsewhere (ONNX `Hardmax`).
    case hardmax
  }

  /// Transforms each of the `outer × inner` lines of `length` values; a softmax over the last
  /// axis runs in the kernel set's C kernel.
  @_optimize(speed)
  static func run(
    _ kind: Kind = .softmax, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    outer: Int, length: Int, inner: Int, kernels: KernelSet = .active, threads: Int = 1
  ) {
    if kind == .softmax && inner == 1 {
      let native = kernels.native
      Parallel.forEachRows(outer, length: length, threads: threads) { first, count in
        native.softmax(
          input + first * length, output + first * length, Int64(count), Int64(length))
      }
      return
    }
    for block in 0..<outer {
      let base = block * length * inner
      for lane in 0..<inner {
        var maximum = -Float.infinity
        var first = 0
        for index in 0..<length where input[base + index * inner + lane] > maximum {
          maximum = input[base + index * inner + lane]
          first = index
        }
        if kind == .hardmax {
          for index in 0..<length { output[base + index * inner + lane] = index == first ? 1 : 0 }
          continue
        }
        var sum: Float = 0
        for index in 0..<length {
          let value = Foundation.exp(input[base + index * inner + lane] - maximum)
          output[base + index * inner + lane] = value
          sum += value
        }
        if kind == .logSoftmax {
          let offset = maximum + Foundation.log(sum)
          for index in 0..<length {
            output[base + index * inner + lane] = input[base + index * inner + lane] - offset
          }
          continue
        }
        let scale = 1 / sum
        for index in 0..<length { output[base + index * inner + lane] *= scale }
      }
    }
  }
}
