import ModelFormats
import Testing

@testable import NeuralCore

/// The plan folds `Add(pointwise conv, residual)` into the convolution's blocked kernel only when
/// nothing else reads the convolution's output, and computes the same values either way.
@Suite struct ResidualFoldTests {
  static let channels = 20
  static let shape = [1, channels, 7, 9]

  /// `relu(conv1(x))` feeding a projection whose output is added back to it, like an MBConv
  /// block; `addFirst` puts the projection first among the Add's inputs.
  static func model(addFirst: Bool, exposeProjection: Bool, reluAfter: Bool = false) throws
    -> ONNXModel
  {
    var random = UInt32(11)
    func values(_ count: Int) -> [Float] {
      (0..<count).map { _ in
        random = random &* 1_664_525 &+ 1_013_904_223
        return Float(Int(random >> 20) - 2048) / 4096
      }
    }
    var graph = GraphBuilder()
    for name in ["w1", "w2"] {
      graph.constant(
        name, try Tensor(shape: [channels, channels, 1, 1], scalars: values(channels * channels)))
    }
    graph.constant("b1", try Tensor(shape: [channels], scalars: values(channels)))
    graph.constant("b2", try Tensor(shape: [channels], scalars: values(channels)))
    graph.node("Conv", ["x", "w1", "b1"], ["c"], ["kernel_shape": .ints([1, 1])])
    graph.node("Relu", ["c"], ["r"])
    graph.node("Conv", ["r", "w2", "b2"], ["p"], ["kernel_shape": .ints([1, 1])])
    graph.node("Add", addFirst ? ["p", "r"] : ["r", "p"], [reluAfter ? "sum" : "y"])
    if reluAfter { graph.node("Relu", ["sum"], ["y"]) }
    return graph.model(
      inputs: [("x", shape)], outputs: exposeProjection ? ["y", "p"] : ["y"])
  }

  /// The same network computed directly in Swift.
  static func expected(_ model: ONNXModel, _ x: [Float]) throws -> (y: [Float], p: [Float]) {
    func constant(_ name: String) throws -> [Float] {
      guard case .float(let tensor)? = model.graph.initializer(named: name)?.value else {
        throw NeuralCoreError(.missingValue, name)
      }
      return tensor.scalars
    }
    let positions = shape[2] * shape[3]
    func pointwise(_ input: [Float], _ w: [Float], _ b: [Float]) -> [Float] {
      var output = [Float](repeating: 0, count: channels * positions)
      for o in 0..<channels {
        for p in 0..<positions {
          var sum = b[o]
          for i in 0..<channels { sum += w[o * channels + i] * input[i * positions + p] }
          output[o * positions + p] = sum
        }
      }
      return output
    }
    let r = pointwise(x, try constant("w1"), try constant("b1")).map { max($0, 0) }
    let p = pointwise(r, try constant("w2"), try constant("b2"))
    return (zip(p, r).map { $0 + $1 }, p)
  }

  @Test(arguments: [(true, false), (false, false), (true, true)])
  func foldsOnlyAnUnsharedProjection(addFirst: Bool, exposeProjection: Bool) throws {
    let model = try Self.model(addFirst: addFirst, exposeProjection: exposeProjection)
    let count = Self.shape.reduce(1, *)
    let x = (0..<count).map { Float(($0 * 37) % 101) / 50 - 1 }
    let expected = try Self.expected(model, x)
    for threads in [1, 2] {
      let session = try InferenceSession(
        model: model, options: SessionOptions(threadCount: threads))
      let input = try Tensor(shape: Self.shape, scalars: x)
      let outputs = try session.run(["x": input])
      let y = try #require(outputs["y"])
      let worst = zip(y.scalars, expected.y).map { abs($0 - $1) }.max() ?? .nan
      #expect(worst <= 1e-5, "y: \(worst)")
      if exposeProjection {
        let p = try #require(outputs["p"])
        #expect(zip(p.scalars, expected.p).map { abs($0 - $1) }.max() ?? .nan <= 1e-5)
      }
      let folded = try session.profile(["x": input], runs: 1).contains { $0.name.contains(" + ") }
      #expect(folded == !exposeProjection)
    }
  }

  /// `relu(projection + residual)`, as ResNet's blocks end: the ReLU folds into the same step
  /// (the kernel clamps after adding the residual).
  @Test func foldsTheReluAfterTheSum() throws {
    let model = try Self.model(addFirst: true, exposeProjection: false, reluAfter: true)
    let count = Self.shape.reduce(1, *)
    let x = (0..<count).map { Float(($0 * 53) % 97) / 48 - 1 }
    let expected = try Self.expected(model, x).y.map { max($0, 0) }
    let input = try Tensor(shape: Self.shape, scalars: x)
    for kernels in KernelSet.underTest {
      let session = try InferenceSession(
        graph: Graph(model), options: SessionOptions(), kernels: kernels)
      let y = try #require(try session.run(["x": input])["y"])
      let worst = zip(y.scalars, expected).map { abs($0 - $1) }.max() ?? .nan
      #expect(worst <= 1e-5, "\(kernels): \(worst)")
      let names = try session.profile(["x": input], runs: 1).map(\.name)
      #expect(
        names.contains { $0.contains("Add") && $0.contains("Relu") }, "\(kernels): \(names)")
    }
  }
}
