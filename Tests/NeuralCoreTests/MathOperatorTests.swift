import ModelFormats
import Testing

@testable import NeuralCore

/// The element-wise, reduction and variadic operators beyond what ONNX's node tests cover: bad
/// axes are load errors naming the node, and a computed result checked by hand.
struct MathOperatorTests {
  func session(_ build: (inout GraphBuilder) -> Void) throws -> InferenceSession {
    var builder = GraphBuilder()
    build(&builder)
    return try InferenceSession(model: builder.model(inputs: [("x", [2, 3])], outputs: ["y"]))
  }

  @Test(arguments: [[2], [-3], [0, 0]] as [[Int64]])
  func reductionAxesOutOfRangeOrRepeatedAreLoadErrors(axes: [Int64]) {
    #expect {
      try session { $0.node("ReduceMax", ["x"], ["y"], ["axes": .ints(axes)]) }
    } throws: { error in
      guard let error = (error as? ModelFormatsError)?.underlying as? NeuralCoreError else {
        return false
      }
      return error.message.contains("ReduceMax") && error.message.contains("axis")
    }
  }

  @Test func reductionAxesComputedWhileRunningAreRefused() {
    #expect(throws: ModelFormatsError.self) {
      try session { $0.node("ReduceSum", ["x", "x"], ["y"]) }
    }
  }

  @Test func reductionsMatchAHandComputation() throws {
    let x = try Tensor(shape: [2, 3], scalars: [1, -2, 3, 4, 5, -6])
    let cases: [(String, [Float])] = [
      ("ReduceSum", [2, 3]), ("ReduceMean", [2.0 / 3, 1]), ("ReduceMax", [3, 5]),
      ("ReduceMin", [-2, -6]), ("ReduceProd", [-6, -120]), ("ReduceL1", [6, 15]),
      ("ReduceSumSquare", [14, 77]),
      ("ReduceL2", [Float(14).squareRoot(), Float(77).squareRoot()]),
    ]
    for (name, expected) in cases {
      let model = try session {
        $0.node(name, ["x"], ["y"], ["axes": .ints([1]), "keepdims": .int(0)])
      }
      let y = try #require(try model.run(["x": x])["y"])
      #expect(y.shape == [2], "\(name)")
      #expect(zip(y.scalars, expected).allSatisfy { abs($0 - $1) < 1e-5 }, "\(name): \(y.scalars)")
    }
  }

  /// ONNX `Mod`: `fmod = 0` takes the divisor's sign (Python's `%`), `fmod = 1` the dividend's
  /// (C's `fmod`), for integer constants folded while planning and for floats at run time.
  @Test func modTakesTheDivisorsOrTheDividendsSign() throws {
    let dividends: [Int64] = [7, -7, 7, -7, 6, -6]
    let divisors: [Int64] = [3, 3, -3, -3, 3, 3]
    let expected: [Int: [Float]] = [0: [1, 2, -2, -1, 0, 0], 1: [1, -1, 1, -1, 0, 0]]
    for fmod in [0, 1] {
      var builder = GraphBuilder()
      builder.integers("a", dividends, shape: [2, 3])
      builder.integers("b", divisors, shape: [2, 3])
      builder.node("Mod", ["a", "b"], ["folded"], ["fmod": .int(Int64(fmod))])
      builder.node("Cast", ["folded"], ["integers"], ["to": .int(1)])
      builder.node("Add", ["integers", "x"], ["sum"])
      builder.node("Mod", ["x", "divisors"], ["floats"], ["fmod": .int(Int64(fmod))])
      builder.node("Add", ["sum", "floats"], ["y"])
      builder.constant("divisors", try Tensor(shape: [2, 3], scalars: divisors.map { Float($0) }))
      let session = try InferenceSession(
        model: builder.model(inputs: [("x", [2, 3])], outputs: ["y"]))
      let x = try Tensor(shape: [2, 3], scalars: dividends.map { Float($0) })
      let y = try #require(try session.run(["x": x])["y"])
      // y = Mod(a, b) + x + Mod(x, divisors), with x = a: twice the remainder plus a.
      let want = zip(expected[fmod] ?? [], dividends).map { 2 * $0 + Float($1) }
      #expect(y.scalars == want, "fmod \(fmod): \(y.scalars)")
    }
  }

  /// Raw exports (Swin's window masks) transpose and concatenate integer constants of rank 2 and
  /// cast run-time values to bool; the first fold while planning, the cast runs as 1 and 0.
  @Test func integerLayoutFoldsAndRunTimeBoolCasts() throws {
    var builder = GraphBuilder()
    builder.integers("a", [1, 2, 3], shape: [3, 1])
    builder.node("Transpose", ["a"], ["row"])  // [[1, 2, 3]]
    builder.node("Concat", ["row", "row"], ["rows"], ["axis": .int(0)])  // [2, 3]
    builder.node("Cast", ["rows"], ["floats"], ["to": .int(1)])
    builder.node("Cast", ["x"], ["mask"], ["to": .int(9)])
    builder.node("Add", ["floats", "mask"], ["y"])
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", [2, 3])], outputs: ["y"]))
    let x = try Tensor(shape: [2, 3], scalars: [0, -0.5, 2, .nan, 0, 7])
    let y = try #require(try session.run(["x": x])["y"])
    #expect(y.scalars == [1, 3, 4, 2, 2, 4])
  }

  @Test func logSumExpDoesNotOverflow() throws {
    let model = try session { $0.node("ReduceLogSumExp", ["x"], ["y"], ["axes": .ints([1])]) }
    let x = try Tensor(shape: [2, 3], scalars: [1000, 1000, 1000, -1000, -1000, -1000])
    let y = try #require(try model.run(["x": x])["y"])
    let log3: Float = 1.0986123
    #expect(y.shape == [2, 1])
    #expect(abs(y.scalars[0] - (1000 + log3)) < 1e-2 && abs(y.scalars[1] - (-1000 + log3)) < 1e-2)
  }

  @Test func variadicMaxBroadcastsAndKeepsNaN() throws {
    var builder = GraphBuilder()
    builder.constant("row", try Tensor(shape: [3], scalars: [0, 10, .nan]))
    builder.node("Max", ["x", "row"], ["y"])
    let model = try InferenceSession(
      model: builder.model(inputs: [("x", [2, 3])], outputs: ["y"]))
    let x = try Tensor(shape: [2, 3], scalars: [1, -2, 3, -4, 50, 6])
    let y = try #require(try model.run(["x": x])["y"])
    #expect(Array(y.scalars[0..<2]) == [1, 10] && Array(y.scalars[3..<5]) == [0, 50])
    #expect(y.scalars[2].isNaN && y.scalars[5].isNaN)
  }

  @Test func gatherElementsIndicesOutsideTheAxisAreLoadErrors() {
    for index: Int64 in [3, -4] {
      #expect {
        try session {
          $0.integers("indices", [0, 1, index, 0, 1, 2], shape: [2, 3])
          $0.node("GatherElements", ["x", "indices"], ["y"], ["axis": .int(1)])
        }
      } throws: { error in
        ((error as? ModelFormatsError)?.underlying as? NeuralCoreError)?.code == .invalidArgument
      }
    }
  }

  @Test func gatherElementsReadsAlongTheAxis() throws {
    let model = try session {
      $0.integers("indices", [2, 0, 1, -1, -2, -3], shape: [2, 3])
      $0.node("GatherElements", ["x", "indices"], ["y"], ["axis": .int(1)])
    }
    let x = try Tensor(shape: [2, 3], scalars: [1, 2, 3, 4, 5, 6])
    let y = try #require(try model.run(["x": x])["y"])
    #expect(y.scalars == [3, 1, 2, 6, 5, 4])
  }

  @Test func hugeTilesAndConstantShapesAreRefusedBeforeAllocating() {
    #expect {
      try session {
        $0.integers("repeats", [1 << 40, 1 << 40])
        $0.node("Tile", ["x", "repeats"], ["y"])
      }
    } throws: { error in
      (error as? ModelFormatsError)?.code == .limitExceeded
    }
    #expect {
      try session {
        $0.integers("shape", [1 << 20, 1 << 20])
        $0.node("ConstantOfShape", ["shape"], ["c"])
        $0.node("Add", ["x", "c"], ["y"])
      }
    } throws: { error in
      (error as? ModelFormatsError)?.code == .limitExceeded
    }
  }

  @Test func whereOnARunTimeComparisonPicksPerElement() throws {
    let zero = try Tensor(shape: [], scalars: [0])
    let model = try session {
      $0.constant("zero", zero)
      $0.node("Less", ["x", "zero"], ["negative"])
      $0.node("Neg", ["x"], ["flipped"])
      $0.node("Where", ["negative", "flipped", "x"], ["y"])
    }
    let x = try Tensor(shape: [2, 3], scalars: [1, -2, 3, -4, 0, -6])
    let y = try #require(try model.run(["x": x])["y"])
    #expect(y.scalars == [1, 2, 3, 4, 0, 6])
  }

  @Test func einsumContractsLikeAMatrixProductAndRefusesBadEquations() throws {
    let product = try Einsum("ij,jk->ik", shapes: [[2, 3], [3, 2]])
    #expect(product.outputShape == [2, 2])
    let a: [Float] = [1, 2, 3, 4, 5, 6]
    let b: [Float] = [1, 0, 0, 1, 1, 1]
    var c = [Float](repeating: .nan, count: 4)
    a.withUnsafeBufferPointer { left in
      b.withUnsafeBufferPointer { right in
        c.withUnsafeMutableBufferPointer { target in
          // Safety: the buffers hold the shapes the summation was parsed for.
          guard let x = left.baseAddress, let y = right.baseAddress, let z = target.baseAddress
          else { return }
          product.run([x, y], into: z)
        }
      }
    }
    #expect(c == [4, 5, 10, 11])
    #expect(try Einsum("ii", shapes: [[3, 3]]).outputShape == [])
    for (equation, shapes) in [
      ("ij,jk->ik", [[2, 3], [4, 2]]), ("ij->ik", [[2, 3]]), ("ij,jk", [[2, 3]]),
      ("i?j", [[2, 3]]), ("ij->ij->i", [[2, 3]]),
    ] {
      #expect(throws: NeuralCoreError.self, "\(equation)") {
        try Einsum(equation, shapes: shapes)
      }
    }
  }
}
