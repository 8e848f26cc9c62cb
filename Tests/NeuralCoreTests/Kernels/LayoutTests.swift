import TestSupport
import Testing

@testable import NeuralCore

@Suite struct LayoutTests {
  @Test func transposeMatchesTheReference() {
    var generator = SeededGenerator(seed: 19)
    for _ in 0..<200 {
      let rank = Int.random(in: 1...6, using: &generator)
      let shape = (0..<rank).map { _ in Int.random(in: 1...6, using: &generator) }
      let permutation = Array(0..<rank).shuffled(using: &generator)
      let input = generator.floats(shape.reduce(1, *))
      let expected = Layout.transposeReference(input: input, shape: shape, permutation: permutation)
      let actual = Self.written(from: input) { from, to in
        Layout.transpose(input: from, shape: shape, permutation: permutation, output: to)
      }
      #expect(actual == expected, "\(shape) \(permutation)")
    }
  }

  /// A channel shuffle keeps its innermost axes: they merge into one run that is copied whole;
  /// length-1 axes drop out; a permutation with no adjacent pair keeps every axis.
  @Test func transposeMergesAxesThatStayInOrder() {
    #expect(
      Layout.merged(shape: [1, 2, 24, 28, 28], permutation: [0, 2, 1, 3, 4])
        == ([2, 24, 784], [1, 0, 2]))
    #expect(Layout.merged(shape: [3, 1, 4], permutation: [2, 1, 0]) == ([3, 4], [1, 0]))
    #expect(Layout.merged(shape: [2, 3, 4], permutation: [0, 1, 2]) == ([24], [0]))
    #expect(Layout.merged(shape: [1, 1], permutation: [1, 0]) == ([1], [0]))
    #expect(Layout.merged(shape: [2, 3, 4], permutation: [2, 0, 1]) == ([6, 4], [1, 0]))
    #expect(Layout.merged(shape: [2, 3, 4], permutation: [1, 2, 0]) == ([2, 12], [1, 0]))
    #expect(Layout.merged(shape: [2, 3, 4], permutation: [2, 1, 0]) == ([2, 3, 4], [2, 1, 0]))
  }

  /// The tiled matrix transpose against the general one, on sizes below, at and across the
  /// 32-element tile (partial tiles on both sides).
  @Test(arguments: [(1, 1), (1, 70), (33, 1), (32, 32), (33, 70), (64, 31), (100, 97)])
  func matrixTransposeMatchesTheReference(rows: Int, columns: Int) {
    var generator = SeededGenerator(seed: 29)
    let input = generator.floats(rows * columns)
    let expected = Layout.transposeReference(
      input: input, shape: [rows, columns], permutation: [1, 0])
    let actual = Self.written(from: input) { from, to in
      Layout.transposeMatrix(input: from, rows: rows, columns: columns, output: to)
    }
    #expect(actual == expected, "\(rows) x \(columns)")
  }

  /// What `body` writes from `input` into as many elements (NaN where it writes nothing).
  static func written(
    from input: [Float], by body: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void
  ) -> [Float] {
    var output = [Float](repeating: .nan, count: input.count)
    input.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        // Safety: same element count in and out.
        guard let from = source.baseAddress, let to = target.baseAddress else { return }
        body(from, to)
      }
    }
    return output
  }

  @Test(arguments: [Layout.PadMode.constant(1.5), .reflect, .edge])
  func padMatchesTheReference(mode: Layout.PadMode) {
    var generator = SeededGenerator(seed: 23)
    for _ in 0..<40 {
      let rank = Int.random(in: 1...4, using: &generator)
      let shape = (0..<rank).map { _ in Int.random(in: 2...6, using: &generator) }
      let limit = mode == .constant(1.5) ? 3 : 1
      let begins = shape.map { _ in Int.random(in: -1...limit, using: &generator) }
      let ends = shape.map { _ in Int.random(in: -1...limit, using: &generator) }
      let input = generator.floats(shape.reduce(1, *))
      let expected = Layout.padReference(
        input: input, shape: shape, begins: begins, ends: ends, mode: mode)
      var actual = [Float](repeating: .nan, count: expected.count)
      input.withUnsafeBufferPointer { source in
        actual.withUnsafeMutableBufferPointer { target in
          // Safety: the output holds the padded element count.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          Layout.pad(input: from, shape: shape, begins: begins, ends: ends, mode: mode, output: to)
        }
      }
      #expect(actual == expected, "\(shape) \(begins) \(ends)")
    }
  }

  @Test func concatenateInterleavesBlocks() {
    let a: [Float] = [1, 2, 3, 4]
    let b: [Float] = [5, 6]
    var output = [Float](repeating: 0, count: 6)
    a.withUnsafeBufferPointer { aBuffer in
      b.withUnsafeBufferPointer { bBuffer in
        output.withUnsafeMutableBufferPointer { target in
          // Safety: two outer blocks of 2 + 1 floats.
          guard let aBase = aBuffer.baseAddress, let bBase = bBuffer.baseAddress,
            let out = target.baseAddress
          else { return }
          Layout.concatenate(inputs: [aBase, bBase], blocks: [2, 1], outer: 2, output: out)
        }
      }
    }
    #expect(output == [1, 2, 5, 3, 4, 6])
  }

  @Test func softmaxMatchesTheReference() {
    var generator = SeededGenerator(seed: 29)
    for (outer, length, inner) in [(1, 1000, 1), (3, 7, 5), (2, 1, 4), (4, 33, 1)] {
      let input = generator.floats(outer * length * inner).map { $0 * 20 }
      let expected = Softmax.reference(input: input, outer: outer, length: length, inner: inner)
      var actual = [Float](repeating: .nan, count: input.count)
      input.withUnsafeBufferPointer { source in
        actual.withUnsafeMutableBufferPointer { target in
          // Safety: same element count in and out.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          Softmax.run(input: from, output: to, outer: outer, length: length, inner: inner)
        }
      }
      #expect(relativeMismatch(actual, expected) == nil)
    }
  }
}
