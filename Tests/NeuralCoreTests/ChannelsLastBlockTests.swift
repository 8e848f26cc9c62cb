import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// A ConvNeXt block as PyTorch exports it runs in few steps and gives the block's values.
///
/// The block: a depthwise convolution, a transpose to channels-last order, a linear layer
/// (MatMul and bias Add), the transpose back, a layer scale read through an Identity of a
/// shared parameter, and the residual Add. The transposes convert straight between
/// the blocked layout and channels-last order, the bias and the scale fold into the product, and
/// the values match the block computed here by its definition.
@Suite struct ChannelsLastBlockTests {
  static let (channels, height, width) = (21, 5, 7)

  static func values(_ count: Int, _ seed: Int) -> [Float] {
    (0..<count).map { Float((($0 + seed) * 37) % 29) / 29 - 0.5 }
  }

  static func model(exposeTranspose: Bool) throws -> ONNXModel {
    let c = channels
    var graph = GraphBuilder()
    graph.constant("dw", try Tensor(shape: [c, 1, 3, 3], scalars: values(c * 9, 1)))
    graph.constant("db", try Tensor(shape: [c], scalars: values(c, 2)))
    graph.constant("w", try Tensor(shape: [c, c], scalars: values(c * c, 3)))
    graph.constant("b", try Tensor(shape: [c], scalars: values(c, 4)))
    graph.constant("shared", try Tensor(shape: [c, 1, 1], scalars: values(c, 5)))
    graph.node(
      "Conv", ["x", "dw", "db"], ["d"],
      ["kernel_shape": .ints([3, 3]), "pads": .ints([1, 1, 1, 1]), "group": .int(Int64(c))])
    graph.node("Transpose", ["d"], ["t"], ["perm": .ints([0, 2, 3, 1])])
    graph.node("MatMul", ["t", "w"], ["m"])
    graph.node("Add", ["b", "m"], ["l"])
    graph.node("Transpose", ["l"], ["u"], ["perm": .ints([0, 3, 1, 2])])
    graph.node("Identity", ["shared"], ["gamma"])
    graph.node("Mul", ["gamma", "u"], ["s"])
    graph.node("Add", ["s", "x"], ["y"])
    return graph.model(
      inputs: [("x", [1, c, height, width])], outputs: exposeTranspose ? ["y", "u"] : ["y"])
  }

  /// The block by its definition, in Double.
  static func expected(_ x: [Float]) -> [Float] {
    let (c, h, w) = (channels, height, width)
    let (dw, db, weights, bias, gamma) = (
      values(c * 9, 1), values(c, 2), values(c * c, 3), values(c, 4), values(c, 5)
    )
    var depthwise = [Double](repeating: 0, count: c * h * w)
    for channel in 0..<c {
      for y in 0..<h {
        for column in 0..<w {
          var sum = Double(db[channel])
          for ky in 0..<3 {
            for kx in 0..<3 {
              let (sy, sx) = (y + ky - 1, column + kx - 1)
              guard sy >= 0, sy < h, sx >= 0, sx < w else { continue }
              sum += Double(x[(channel * h + sy) * w + sx]) * Double(dw[channel * 9 + ky * 3 + kx])
            }
          }
          depthwise[(channel * h + y) * w + column] = sum
        }
      }
    }
    var result = [Float](repeating: 0, count: c * h * w)
    for position in 0..<(h * w) {
      for out in 0..<c {
        var sum = Double(bias[out])
        for input in 0..<c {
          sum += depthwise[input * h * w + position] * Double(weights[input * c + out])
        }
        result[out * h * w + position] = Float(
          sum * Double(gamma[out]) + Double(x[out * h * w + position]))
      }
    }
    return result
  }

  @Test func convNeXtBlockConvertsLayoutsOnceAndFoldsItsScale() throws {
    let input = Self.values(Self.channels * Self.height * Self.width, 7)
    let expected = Self.expected(input)
    for kernels in KernelSet.underTest {
      for expose in [false, true] {
        let session = try InferenceSession(
          graph: Graph(try Self.model(exposeTranspose: expose)),
          options: SessionOptions(threadCount: 2), kernels: kernels)
        let feeds = [
          "x": try Tensor(shape: [1, Self.channels, Self.height, Self.width], scalars: input)
        ]
        let steps = try session.profile(feeds, runs: 1).map(\.name)
        if !expose {
          // The input's blocked copy, the convolution, the transpose out of the blocked
          // layout, the product (bias and scale folded), the transpose into the blocked layout,
          // the residual Add, and the output's NCHW copy.
          #expect(
            steps == [
              "x::block", "Conv_0", "Transpose_1", "MatMul_2", "Transpose_4", "Add_7",
              "y::unblock",
            ], "\(kernels)")
        }
        let y = try #require(try session.run(feeds)["y"])
        #expect(relativeMismatch(y.scalars, expected) == nil, "\(kernels) exposed \(expose)")
      }
    }
  }
}
