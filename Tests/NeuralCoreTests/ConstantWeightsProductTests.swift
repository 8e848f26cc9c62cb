import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// `Gemm` (with and without `transB`) and `MatMul` of more rows than a classifier head by
/// constant weights, which are packed once when planned, give the products computed here in
/// Double; a head of a few rows reads the same weights in place.
@Suite struct ConstantWeightsProductTests {
  static let (k, n) = (37, 45)

  static func values(_ count: Int, _ seed: Int) -> [Float] {
    (0..<count).map { Float((($0 + seed) * 41) % 53) / 53 - 0.5 }
  }

  /// `y[r][j] = sum over p of x[r][p] * w[p][j]`.
  static func product(_ x: [Float], rows: Int, _ w: [Float]) -> [Float] {
    (0..<(rows * n)).map { index in
      let (r, j) = (index / n, index % n)
      return Float((0..<k).reduce(0.0) { $0 + Double(x[r * k + $1]) * Double(w[$1 * n + j]) })
    }
  }

  @Test(arguments: [("Gemm", false), ("Gemm", true), ("MatMul", false)], [3, 13, 100])
  func constantWeightsGiveTheProduct(operation: (String, Bool), rows: Int) throws {
    let (name, transposed) = operation
    let w = Self.values(Self.k * Self.n, 1)
    // Gemm with transB holds W transposed ([n, k]); MatMul reads [rows, 1, k] activations.
    let stored =
      transposed ? (0..<(Self.k * Self.n)).map { w[($0 % Self.k) * Self.n + $0 / Self.k] } : w
    var graph = GraphBuilder()
    graph.constant(
      "w", try Tensor(shape: transposed ? [Self.n, Self.k] : [Self.k, Self.n], scalars: stored))
    graph.node(name, ["x", "w"], ["y"], transposed ? ["transB": .int(1)] : [:])
    let shape = name == "MatMul" ? [rows, 1, Self.k] : [rows, Self.k]
    let model = graph.model(inputs: [("x", shape)], outputs: ["y"])
    let x = Self.values(rows * Self.k, 2)
    let expected = Self.product(x, rows: rows, w)
    for kernels in KernelSet.underTest {
      for threads in [1, 2] {
        let session = try InferenceSession(
          graph: Graph(model), options: SessionOptions(threadCount: threads), kernels: kernels)
        let y = try #require(try session.run(["x": try Tensor(shape: shape, scalars: x)])["y"])
        #expect(
          relativeMismatch(y.scalars, expected) == nil,
          "\(name) transB \(transposed) rows \(rows) \(kernels) threads \(threads)")
      }
    }
  }

  /// A linear layer as PyTorch exports it (`Add(MatMul(x, W), b)`, the bias on either side)
  /// folds into one step that adds the bias in the product's epilogue, at every row count (a
  /// head of few rows too); a bias of another shape stays a separate Add.
  @Test(arguments: [3, 13, 100], [false, true])
  func linearBiasFoldsIntoTheProduct(rows: Int, biasFirst: Bool) throws {
    let w = Self.values(Self.k * Self.n, 1)
    let b = Self.values(Self.n, 3)
    let x = Self.values(rows * Self.k, 2)
    let product = Self.product(x, rows: rows, w)
    let expected = product.indices.map { product[$0] + b[$0 % Self.n] }
    for biasShape in [[Self.n], [1, Self.n]] {
      var graph = GraphBuilder()
      graph.constant("w", try Tensor(shape: [Self.k, Self.n], scalars: w))
      graph.constant("b", try Tensor(shape: biasShape, scalars: b))
      graph.node("MatMul", ["x", "w"], ["p"])
      graph.node("Add", biasFirst ? ["b", "p"] : ["p", "b"], ["y"])
      let model = graph.model(inputs: [("x", [rows, Self.k])], outputs: ["y"])
      for kernels in KernelSet.underTest {
        let session = try InferenceSession(
          graph: Graph(model), options: SessionOptions(threadCount: 2), kernels: kernels)
        let feeds = ["x": try Tensor(shape: [rows, Self.k], scalars: x)]
        let steps = try session.profile(feeds, runs: 1).map(\.name)
        #expect(steps.count == (biasShape.count == 1 ? 1 : 2), "\(steps)")
        let y = try #require(try session.run(feeds)["y"])
        #expect(
          relativeMismatch(y.scalars, expected) == nil, "rows \(rows) bias \(biasShape) \(kernels)")
      }
    }
  }

  /// Attention's query scaling (`MatMul(Mul(q, s), k)` with a constant scalar `s`, on either
  /// side of the Mul) becomes the product's scale: one step, the values of `s q k`.
  @Test(arguments: [false, true])
  func aScaledOperandFoldsIntoTheProduct(scaleFirst: Bool) throws {
    let (batch, m, k, n) = (3, 5, 7, 4)
    var graph = GraphBuilder()
    graph.constant("s", try Tensor(shape: [], scalars: [0.125]))
    graph.node("Mul", scaleFirst ? ["s", "q"] : ["q", "s"], ["scaled"])
    graph.node("MatMul", ["scaled", "key"], ["y"])
    let model = graph.model(
      inputs: [("q", [batch, m, k]), ("key", [batch, k, n])], outputs: ["y"])
    let q = Self.values(batch * m * k, 5)
    let key = Self.values(batch * k * n, 6)
    let expected = (0..<(batch * m * n)).map { index -> Float in
      let (image, row, column) = (index / (m * n), index / n % m, index % n)
      let sum = (0..<k).reduce(0.0) {
        $0 + Double(q[(image * m + row) * k + $1]) * Double(key[(image * k + $1) * n + column])
      }
      return Float(0.125 * sum)
    }
    for kernels in KernelSet.underTest {
      let session = try InferenceSession(
        graph: Graph(model), options: SessionOptions(threadCount: 1), kernels: kernels)
      let feeds = [
        "q": try Tensor(shape: [batch, m, k], scalars: q),
        "key": try Tensor(shape: [batch, k, n], scalars: key),
      ]
      #expect(try session.profile(feeds, runs: 1).count == 1)
      let y = try #require(try session.run(feeds)["y"])
      #expect(relativeMismatch(y.scalars, expected) == nil, "\(kernels)")
    }
  }
}
