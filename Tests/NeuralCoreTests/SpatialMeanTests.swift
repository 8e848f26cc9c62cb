import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// `ReduceMean` over the spatial axes of a blocked image (ShuffleNet's and MnasNet's pooling)
/// reads the blocked layout directly, with or without the reduced axes kept, and gives each
/// channel's mean computed here in Double.
@Suite struct SpatialMeanTests {
  static let shape = [2, 5, 4, 6]
  static let channels = 19

  static func model(axes: [Int64], keepDimensions: Bool) throws -> ONNXModel {
    var graph = GraphBuilder()
    let weights = (0..<(channels * shape[1])).map { Float(($0 * 31) % 23) / 23 - 0.5 }
    graph.constant("w", try Tensor(shape: [channels, shape[1], 1, 1], scalars: weights))
    graph.node("Conv", ["x", "w"], ["c"], ["kernel_shape": .ints([1, 1])])
    graph.node("Relu", ["c"], ["r"])
    graph.node(
      "ReduceMean", ["r"], ["y"],
      ["axes": .ints(axes), "keepdims": .int(keepDimensions ? 1 : 0)])
    return graph.model(inputs: [("x", shape)], outputs: ["y"])
  }

  @Test(arguments: [([2, 3], true), ([-1, -2], false)])
  func meanOfABlockedImage(axes: [Int64], keepDimensions: Bool) throws {
    let model = try Self.model(axes: axes, keepDimensions: keepDimensions)
    let x = (0..<Self.shape.reduce(1, *)).map { Float(($0 * 17) % 41) / 10 - 2 }
    let positions = Self.shape[2] * Self.shape[3]
    var expected: [Float] = []
    for image in 0..<Self.shape[0] {
      for channel in 0..<Self.channels {
        var sum = 0.0
        for position in 0..<positions {
          var value = 0.0
          for input in 0..<Self.shape[1] {
            let weight = Double(Float(((channel * Self.shape[1] + input) * 31) % 23) / 23 - 0.5)
            value += weight * Double(x[(image * Self.shape[1] + input) * positions + position])
          }
          sum += max(value, 0)
        }
        expected.append(Float(sum / Double(positions)))
      }
    }
    for kernels in KernelSet.underTest {
      let session = try InferenceSession(
        graph: Graph(model), options: SessionOptions(), kernels: kernels)
      let feeds = ["x": try Tensor(shape: Self.shape, scalars: x)]
      let y = try #require(try session.run(feeds)["y"])
      #expect(
        y.shape == (keepDimensions ? [2, Self.channels, 1, 1] : [2, Self.channels]), "\(y.shape)")
      #expect(relativeMismatch(y.scalars, expected) == nil, "\(kernels)")
      let names = try session.profile(feeds, runs: 1).map(\.name)
      #expect(!names.contains { $0.contains("::unblock") }, "\(kernels): \(names)")
    }
  }
}
