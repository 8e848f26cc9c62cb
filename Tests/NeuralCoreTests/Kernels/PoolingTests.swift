import TestSupport
import Testing

@testable import NeuralCore

@Suite struct PoolingTests {
  @Test func randomizedWindowsMatchTheReference() {
    var generator = SeededGenerator(seed: 5)
    for trial in 0..<80 {
      let kernel = (
        Int.random(in: 1...4, using: &generator), Int.random(in: 1...4, using: &generator)
      )
      let window = Window(
        kernelHeight: kernel.0, kernelWidth: kernel.1,
        strideY: Int.random(in: 1...3, using: &generator),
        strideX: Int.random(in: 1...3, using: &generator),
        dilationY: Int.random(in: 1...2, using: &generator),
        dilationX: Int.random(in: 1...2, using: &generator),
        padTop: Int.random(in: 0...(kernel.0 - 1), using: &generator),
        padLeft: Int.random(in: 0...(kernel.1 - 1), using: &generator),
        padBottom: Int.random(in: 0...(kernel.0 - 1), using: &generator),
        padRight: Int.random(in: 0...(kernel.1 - 1), using: &generator))
      let kind: Pooling.Kind = [
        .max, .average(countsPadding: true), .average(countsPadding: false),
      ][
        trial % 3]
      let pooling = Pooling(kind: kind, window: window, ceilMode: trial % 2 == 0)
      let height = window.effectiveHeight + Int.random(in: 0...9, using: &generator)
      let width = window.effectiveWidth + Int.random(in: 0...11, using: &generator)
      let planes = Int.random(in: 1...4, using: &generator)
      let input = generator.floats(planes * height * width)
      let expected = pooling.reference(input: input, planes: planes, height: height, width: width)
      guard let size = pooling.outputSize(height: height, width: width) else {
        Issue.record("trial \(trial): no output size")
        continue
      }
      var actual = [Float](repeating: .nan, count: planes * size.height * size.width)
      input.withUnsafeBufferPointer { source in
        actual.withUnsafeMutableBufferPointer { target in
          // Safety: sizes match what run reads and writes.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          pooling.run(
            input: from, planes: planes, height: height, width: width, output: to, threads: 2)
        }
      }
      let mismatch = relativeMismatch(actual, expected)
      #expect(mismatch == nil, "trial \(trial) \(kind) \(window): \(mismatch ?? "")")
    }
  }

  @Test func ceilModeDropsAWindowStartingInTheEndPadding() {
    let window = Window(kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)
    let pooling = Pooling(kind: .max, window: window, ceilMode: true)
    let size = pooling.outputSize(height: 5, width: 4)
    #expect(size?.height == 3 && size?.width == 2)
  }

  @Test func globalAverageMatchesTheReference() {
    var generator = SeededGenerator(seed: 9)
    for count in [1, 7, 8, 49, 196, 1001] {
      let input = generator.floats(3 * count)
      let expected = Pooling.globalAverageReference(input: input, planes: 3, count: count)
      var actual = [Float](repeating: .nan, count: 3)
      input.withUnsafeBufferPointer { source in
        actual.withUnsafeMutableBufferPointer { target in
          // Safety: three planes of count floats in, three floats out.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          Pooling.globalAverage(
            input: from, planes: 3, count: count, output: to, threads: 2,
            kernels: KernelSet.active.native)
        }
      }
      #expect(relativeMismatch(actual, expected) == nil, "count \(count)")
    }
  }
}
