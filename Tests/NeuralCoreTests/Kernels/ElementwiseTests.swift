import TestSupport
import Testing

@testable import NeuralCore

@Suite struct ElementwiseTests {
  static func randomShape(rank: Int, using generator: inout SeededGenerator) -> [Int] {
    (0..<rank).map { _ in Int.random(in: 1...9, using: &generator) }
  }

  /// `Elementwise.run` on arrays.
  static func run(
    _ operation: Elementwise.Operation, _ a: [Float], _ aShape: [Int], _ b: [Float],
    _ bShape: [Int], outputShape: [Int], threads: Int
  ) -> [Float] {
    var actual = [Float](repeating: .nan, count: outputShape.reduce(1, *))
    a.withUnsafeBufferPointer { aBuffer in
      b.withUnsafeBufferPointer { bBuffer in
        actual.withUnsafeMutableBufferPointer { output in
          // Safety: element counts match the shapes passed alongside.
          guard let aBase = aBuffer.baseAddress, let bBase = bBuffer.baseAddress,
            let outputBase = output.baseAddress
          else { return }
          Elementwise.run(
            operation, a: aBase, aShape: aShape, b: bBase, bShape: bShape, output: outputBase,
            outputShape: outputShape, threads: threads, kernels: KernelSet.active.native)
        }
      }
    }
    return actual
  }

  @Test func broadcastingMatchesTheReference() {
    var generator = SeededGenerator(seed: 13)
    let operations: [Elementwise.Operation] = [.add, .subtract, .multiply, .divide]
    for trial in 0..<100 {
      let rank = Int.random(in: 0...4, using: &generator)
      let shape = Self.randomShape(rank: rank, using: &generator)
      // b drops leading axes and sets random axes to 1; a sets other random axes to 1.
      var bShape = Array(shape.dropFirst(Int.random(in: 0...rank, using: &generator)))
      for axis in bShape.indices where Bool.random(using: &generator) { bShape[axis] = 1 }
      var aShape = shape
      for axis in aShape.indices where Bool.random(using: &generator) { aShape[axis] = 1 }
      let a = generator.floats(aShape.reduce(1, *))
      let b = generator.floats(bShape.reduce(1, *)).map { $0 == 0 ? 0.5 : $0 }
      let operation = operations[trial % 4]
      guard
        let outputShape = Elementwise.broadcastShape(aShape, bShape),
        let expected = Elementwise.reference(operation, a: a, aShape: aShape, b: b, bShape: bShape)
      else {
        Issue.record("trial \(trial): \(aShape) and \(bShape) should broadcast")
        continue
      }
      let actual = Self.run(
        operation, a, aShape, b, bShape, outputShape: outputShape, threads: 1)
      #expect(relativeMismatch(actual, expected) == nil, "\(operation) \(aShape) \(bShape)")
    }
  }

  /// Outputs of 64K elements or more are split across threads by lines of the collapsed
  /// innermost axis; every broadcast pattern must give the reference's values.
  @Test func largeBroadcastsSplitAcrossThreads() {
    var generator = SeededGenerator(seed: 19)
    for trial in 0..<12 {
      let shape =
        [Int.random(in: 3...7, using: &generator)]
        + (0..<3).map { _ in
          Int.random(in: 28...40, using: &generator)
        }
      var aShape = shape
      var bShape = Array(shape.dropFirst(trial % 3))
      for axis in bShape.indices where Bool.random(using: &generator) { bShape[axis] = 1 }
      if trial % 4 == 1 { aShape[1] = 1 }
      let a = generator.floats(aShape.reduce(1, *))
      let b = generator.floats(bShape.reduce(1, *))
      guard let outputShape = Elementwise.broadcastShape(aShape, bShape),
        let expected = Elementwise.reference(.multiply, a: a, aShape: aShape, b: b, bShape: bShape)
      else {
        Issue.record("trial \(trial): \(aShape) and \(bShape) should broadcast")
        continue
      }
      let actual = Self.run(
        .multiply, a, aShape, b, bShape, outputShape: outputShape, threads: 2)
      #expect(expected.count >= 65_536 || trial % 4 == 1, "\(outputShape) is too small")
      #expect(relativeMismatch(actual, expected) == nil, "\(aShape) \(bShape)")
    }
  }

  @Test func incompatibleShapesDoNotBroadcast() {
    #expect(Elementwise.broadcastShape([2, 3], [4, 3]) == nil)
    #expect(Elementwise.broadcastShape([2, 1], [1, 3]) == [2, 3])
  }

  @Test(arguments: [
    Activation.relu, .clip(min: 0, max: 6), .clip(min: 2, max: 1), .sigmoid,
    .hardSigmoid(alpha: 0.2, beta: 0.5), .hardSwish, .silu,
  ])
  func vectorActivationsMatchTheScalarDefinition(activation: Activation) {
    var generator = SeededGenerator(seed: 17)
    let input = generator.floats(37).map { $0 * 9 } + [0, -0, 100, -100]
    var actual = input
    actual.withUnsafeMutableBufferPointer { buffer in
      // Safety: apply touches exactly buffer.count values.
      guard let base = buffer.baseAddress else { return }
      activation.apply(base, count: buffer.count)
    }
    #expect(relativeMismatch(actual, input.map { activation($0) }) == nil)
  }
}
