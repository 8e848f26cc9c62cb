import TestSupport
import Testing

@testable import NeuralCore

@Suite struct GEMMTests {
  @Test(arguments: KernelSet.available)
  func randomizedShapesMatchTheReference(kernels: KernelSet) {
    var generator = SeededGenerator(seed: 3)
    for trial in 0..<60 {
      let m = Int.random(in: 1...37, using: &generator)
      let n = Int.random(in: 1...300, using: &generator)
      let k = Int.random(in: 0...70, using: &generator)
      let transposeA = trial % 2 == 1
      let transposeB = trial % 3 == 1
      let alpha: Float = trial % 4 == 0 ? 0.5 : 1
      let beta: Float = trial % 5 == 0 ? 1 : 0
      let a = generator.floats(m * k)
      let b = generator.floats(k * n)
      let initial = generator.floats(m * n)
      var expected = initial
      GEMM.reference(
        m: m, n: n, k: k, a: a, transposeA: transposeA, b: b, transposeB: transposeB,
        alpha: alpha, beta: beta, c: &expected)
      var actual = beta == 0 ? [Float](repeating: .nan, count: m * n) : initial
      a.withUnsafeBufferPointer { aBuffer in
        b.withUnsafeBufferPointer { bBuffer in
          actual.withUnsafeMutableBufferPointer { cBuffer in
            // Safety: the buffers hold m*k, k*n and m*n floats, as the strides below address.
            guard let aBase = aBuffer.baseAddress ?? UnsafePointer(cBuffer.baseAddress),
              let bBase = bBuffer.baseAddress ?? UnsafePointer(cBuffer.baseAddress),
              let cBase = cBuffer.baseAddress
            else { return }
            GEMM.multiplyStrided(
              rows: m, columns: n, depth: k, a: aBase, aRowStride: transposeA ? 1 : k,
              aColumnStride: transposeA ? m : 1, b: bBase, bRowStride: transposeB ? 1 : n,
              bColumnStride: transposeB ? k : 1, alpha: alpha, c: cBase, ldc: n,
              accumulates: beta != 0, threads: trial % 2 + 1, kernels: kernels)
          }
        }
      }
      let mismatch = relativeMismatch(actual, expected)
      #expect(mismatch == nil, "trial \(trial) m \(m) n \(n) k \(k): \(mismatch ?? "")")
    }
  }
}
