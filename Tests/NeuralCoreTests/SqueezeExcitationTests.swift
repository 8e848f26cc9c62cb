import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// A squeeze-excitation block (global average pool, two 1x1 convolutions, sigmoid, and the
/// product of the gate with the image) keeps its image in the blocked layout: the product
/// scales each channel block in place of reordering to NCHW and back, and gives the values of
/// the block computed here by its definition.
@Suite struct SqueezeExcitationTests {
  static let shape = [1, 6, 5, 7]
  static let channels = 21
  static let squeezed = 5

  static func values(_ count: Int, _ seed: Int) -> [Float] {
    (0..<count).map { Float((($0 + seed) * 37) % 29) / 29 - 0.5 }
  }

  static func model(gateFirst: Bool) throws -> ONNXModel {
    var graph = GraphBuilder()
    let (c, s, i) = (channels, squeezed, shape[1])
    graph.constant("w", try Tensor(shape: [c, i, 1, 1], scalars: values(c * i, 1)))
    graph.constant("b", try Tensor(shape: [c], scalars: values(c, 2)))
    graph.constant("w1", try Tensor(shape: [s, c, 1, 1], scalars: values(s * c, 3)))
    graph.constant("b1", try Tensor(shape: [s], scalars: values(s, 4)))
    graph.constant("w2", try Tensor(shape: [c, s, 1, 1], scalars: values(c * s, 5)))
    graph.constant("b2", try Tensor(shape: [c], scalars: values(c, 6)))
    let pointwise: [String: ONNXAttributeValue] = ["kernel_shape": .ints([1, 1])]
    graph.node("Conv", ["x", "w", "b"], ["c"], pointwise)
    graph.node("Relu", ["c"], ["r"])
    graph.node("GlobalAveragePool", ["r"], ["p"])
    graph.node("Conv", ["p", "w1", "b1"], ["q"], pointwise)
    graph.node("Relu", ["q"], ["qr"])
    graph.node("Conv", ["qr", "w2", "b2"], ["e"], pointwise)
    graph.node("Sigmoid", ["e"], ["g"])
    graph.node("Mul", gateFirst ? ["g", "r"] : ["r", "g"], ["y"])
    return graph.model(inputs: [("x", shape)], outputs: ["y"])
  }

  /// The block by its definition, in Double.
  static func expected(_ x: [Float]) -> [Float] {
    let (c, s, i) = (channels, squeezed, shape[1])
    let positions = shape[2] * shape[3]
    let (w, b, w1, b1, w2, b2) = (
      values(c * i, 1), values(c, 2), values(s * c, 3), values(s, 4), values(c * s, 5),
      values(c, 6)
    )
    var r = [Double](repeating: 0, count: c * positions)
    for o in 0..<c {
      for p in 0..<positions {
        var sum = Double(b[o])
        for k in 0..<i { sum += Double(w[o * i + k]) * Double(x[k * positions + p]) }
        r[o * positions + p] = max(sum, 0)
      }
    }
    let pooled = (0..<c).map { o in r[(o * positions)..<((o + 1) * positions)].reduce(0, +) }
      .map { $0 / Double(positions) }
    let q = (0..<s).map { o in
      max(0, (0..<c).reduce(Double(b1[o])) { $0 + Double(w1[o * c + $1]) * pooled[$1] })
    }
    let gate = (0..<c).map { o in
      1
        / (1
          + Foundation.exp(-(0..<s).reduce(Double(b2[o])) { $0 + Double(w2[o * s + $1]) * q[$1] }))
    }
    return (0..<(c * positions)).map { Float(r[$0] * gate[$0 / positions]) }
  }

  @Test(arguments: [false, true])
  func gateScalesTheBlockedImage(gateFirst: Bool) throws {
    let model = try Self.model(gateFirst: gateFirst)
    let x = Self.values(Self.shape.reduce(1, *), 7).map { $0 * 4 }
    let expected = Self.expected(x)
    for kernels in KernelSet.underTest {
      for threads in [1, 2] {
        let session = try InferenceSession(
          graph: Graph(model), options: SessionOptions(threadCount: threads), kernels: kernels)
        let feeds = ["x": try Tensor(shape: Self.shape, scalars: x)]
        let y = try #require(try session.run(feeds)["y"])
        #expect(relativeMismatch(y.scalars, expected) == nil, "\(kernels) threads \(threads)")
        let names = try session.profile(feeds, runs: 1).map(\.name)
        #expect(!names.contains { $0.contains("r::unblock") }, "\(kernels): \(names)")
      }
    }
  }
}
