import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// The rank-4 `reduce` layer and the other layers lowered with it, in networks written field by
/// field and run on a small image whose values are known, against scalar references written from
/// NeuralNetwork.proto's formulas.
struct CoreMLReduceLayerTests {
  /// One written layer: its kind (the layer one-of field), blobs and parameters.
  struct Layer {
    var kind: Int
    var inputs = ["image"]
    var outputs = ["out"]
    var fill: (inout ProtobufWriter) -> Void = { _ in }
  }

  /// The image, `[1, 3, 2, 3]` in channel, row, column order; row 0 of channel 0 ties its two
  /// largest values and channel 2 has the largest value at (1, 0), so indices show the first.
  static let values: [Float] = [
    0.5, 2, 2, 0.75, 3, 1.5,
    2.5, 0.25, 1, 1.75, 0.5, 2.25,
    1.5, 2, 0.75, 3.5, 1, 0.5,
  ]

  /// A network of `layers` after a 3 x 2 RGB image input; its result is the last layer's first
  /// output.
  static func network(_ layers: [Layer]) -> [UInt8] {
    var writer = ProtobufWriter()
    writer.int(1, 4)
    writer.imageDescription(width: 3, height: 2)
    writer.message(500) { network in
      for (index, layer) in layers.enumerated() {
        network.message(1) { written in
          written.string(1, "layer\(index)")
          for input in layer.inputs { written.string(2, input) }
          for output in layer.outputs { written.string(3, output) }
          written.message(layer.kind, layer.fill)
        }
      }
    }
    return writer.bytes
  }

  /// The network's result for ``values``.
  static func run(_ layers: [Layer]) throws -> Tensor {
    let model = try CoreMLModel(serializedBytes: network(layers))
    let session = try InferenceSession(model: model.graph)
    let input = try Tensor(shape: [1, 3, 2, 3], scalars: values)
    let outputs = try session.run([model.graph.graph.inputs[0].name: input])
    return try #require(outputs[model.scoresOutput])
  }

  /// ``values`` at a channel, row and column.
  static func value(_ c: Int, _ h: Int, _ w: Int) -> Float { values[c * 6 + h * 3 + w] }

  /// ReduceLayerParams' function `mode` of the values of one group.
  static func reference(_ mode: Int, _ group: [Float]) -> Float {
    switch mode {
    case 0: group.reduce(0, +)
    case 1: group.reduce(0, +) / Float(group.count)
    case 2: group.reduce(1, *)
    case 3: group.map { log($0 + 1e-6) }.reduce(0, +)
    case 4: group.map { $0 * $0 }.reduce(0, +)
    case 5: group.map(abs).reduce(0, +)
    case 6: group.map { $0 * $0 }.reduce(0, +).squareRoot()
    case 7: group.max() ?? .nan
    case 8: group.min() ?? .nan
    default: Float(group.firstIndex(of: group.max() ?? .nan) ?? -1)
    }
  }

  @Test func reduceRunsEveryModeOverEveryAxisSet() throws {
    // CHW, HW, C, H, W: which of channel, row and column each reduces.
    let reducedAxes = [
      [true, true, true], [false, true, true], [true, false, false],
      [false, true, false], [false, false, true],
    ]
    for mode in 0...9 {
      for (axis, reduced) in reducedAxes.enumerated() where mode != 9 || axis >= 2 {
        let output = try Self.run([
          Layer(kind: 280) { params in
            params.int(1, Int64(mode))
            params.int(3, Int64(axis))
          }
        ])
        let extents = [3, 2, 3].enumerated().map { reduced[$0.offset] ? 1 : $0.element }
        #expect(output.shape == [1] + extents, "mode \(mode) axis \(axis)")
        var expected: [Float] = []
        for c in 0..<extents[0] {
          for h in 0..<extents[1] {
            for w in 0..<extents[2] {
              var group: [Float] = []
              for gc in reduced[0] ? Array(0..<3) : [c] {
                for gh in reduced[1] ? Array(0..<2) : [h] {
                  for gw in reduced[2] ? Array(0..<3) : [w] {
                    group.append(Self.value(gc, gh, gw))
                  }
                }
              }
              expected.append(Self.reference(mode, group))
            }
          }
        }
        let difference = zip(output.scalars, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(difference <= 1e-4, "mode \(mode) axis \(axis): \(output.scalars) \(expected)")
      }
    }
  }

  @Test func argmaxOverSeveralAxesIsRefused() {
    let error = #expect(throws: ModelFormatsError.self) {
      try Self.run([
        Layer(kind: 280) { params in
          params.int(1, 9)
          params.int(3, 1)
        }
      ])
    }
    #expect(error?.code == .malformedFile, "\(String(describing: error))")
  }

  @Test func argMaxAndArgMinGiveTheFirstIndexAsAFloat() throws {
    let largest = try Self.run([
      Layer(kind: 1025) { params in
        params.int(1, -1)
        params.int(2, 1)
      }
    ])
    #expect(largest.shape == [1, 3, 2])
    #expect(largest.scalars == [1, 1, 0, 2, 1, 0])
    let smallest = try Self.run([Layer(kind: 1020) { $0.int(1, 1) }])
    #expect(smallest.shape == [1, 1, 2, 3])
    #expect(smallest.scalars == [0, 1, 2, 0, 1, 2])
  }

  @Test func sliceStaticTakesNegativeStridesMasksAndASqueezedAxis() throws {
    // x[:, ::-1, :, ::-2]
    let reversed = try Self.run([
      Layer(kind: 995) { params in
        params.packedInts(1, [0, -1, 0, 0])
        params.packedInts(2, [0, 0, 1, 1])
        params.packedInts(3, [1, 0, 0, 0])
        params.packedInts(4, [0, 1, 1, 1])
        params.packedInts(5, [1, -1, 1, -2])
      }
    ])
    #expect(reversed.shape == [1, 3, 2, 2])
    let expected = [2, 1, 0].flatMap { c in
      [0, 1].flatMap { h in [2, 0].map { w in Self.value(c, h, w) } }
    }
    #expect(reversed.scalars == expected)
    // x[:, :, -1, 1:]
    let lastRow = try Self.run([
      Layer(kind: 995) { params in
        params.packedInts(1, [0, 0, -1, 1])
        params.packedInts(2, [1, 1, 0, 0])
        params.packedInts(3, [0, 0, 0, 0])
        params.packedInts(4, [1, 1, 0, 1])
        params.packedInts(5, [1, 1, 1, 1])
        params.packedInts(6, [0, 0, 1, 0])
      }
    ])
    #expect(lastRow.shape == [1, 3, 2])
    #expect(lastRow.scalars == [0, 1, 2].flatMap { c in [1, 2].map { Self.value(c, 1, $0) } })
  }

  @Test func splitNDFeedsEachOutput() throws {
    let output = try Self.run([
      Layer(kind: 975, outputs: ["first", "rest"]) { params in
        params.int(1, 1)
        params.packedInts(3, [1, 2])
      },
      Layer(kind: 980, inputs: ["rest", "first"]) { $0.int(1, 1) },
    ])
    #expect(output.shape == [1, 3, 2, 3])
    #expect(output.scalars == Array(Self.values[6...]) + Array(Self.values[..<6]))
  }

  @Test func interleavedConcatNDAlternatesItsInputs() throws {
    // The image with itself doubled, interleaved along the rows (axis -2).
    let output = try Self.run([
      Layer(kind: 880, inputs: ["image", "image"], outputs: ["double"]),
      Layer(kind: 980, inputs: ["image", "double"]) { params in
        params.int(1, -2)
        params.int(2, 1)
      },
    ])
    #expect(output.shape == [1, 3, 4, 3])
    let expected = (0..<3).flatMap { c in
      (0..<2).flatMap { h in
        let row = (0..<3).map { Self.value(c, h, $0) }
        return row + row.map { 2 * $0 }
      }
    }
    #expect(output.scalars == expected)
  }

  @Test func resizeBilinearSamplesTheCentreOfASingleRow() throws {
    // ALIGN_ENDPOINTS_MODE to one row and three columns: the rows' mean, columns as they are.
    let output = try Self.run([
      Layer(kind: 211) { params in
        params.packedInts(1, [1, 3])
        params.message(2) { $0.int(1, 1) }
      }
    ])
    #expect(output.shape == [1, 3, 1, 3])
    let expected = (0..<3).flatMap { c in
      (0..<3).map { w in (Self.value(c, 0, w) + Self.value(c, 1, w)) / 2 }
    }
    #expect(output.scalars == expected)
  }

  @Test func aLayerKindThatDoesNotRunIsNamed() {
    for (kind, name) in [(420, "uniDirectionalLSTM"), (930, "gather")] {
      let error = #expect(throws: ModelFormatsError.self) {
        try Self.run([Layer(kind: kind, outputs: ["out", "state", "cell"])])
      }
      #expect(error?.code == .unsupported, "\(String(describing: error))")
      #expect(error?.message.contains("a \(name) layer") == true, "\(String(describing: error))")
    }
  }
}
