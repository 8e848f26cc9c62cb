import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

@Suite struct ONNXRobustnessTests {
  @Test func parsesTheSyntheticFixture() throws {
    let model = try ONNXModel(
      serializedBytes: ONNXFixture.model(initializer: ONNXFixture.validInitializer))
    #expect(model.graph.nodes.first?.opType == "Relu")
    #expect(model.graph.nodes.first?.attribute(named: "alpha") == .float(0.5))
    #expect(model.graph.nodes.first?.attribute(named: "alpha")?.floatValue == 0.5)
    #expect(model.graph.nodes.first?.attribute(named: "alpha")?.intValue == nil)
    #expect(
      try model.graph.initializer(named: "w")?.floatTensor()
        == Tensor(shape: [2, 2], scalars: [1, 2, 3, 4]))
    #expect(
      model.graph.inputs.first?.type
        == .tensor(elementType: .float, shape: [.symbolic("N"), .value(4)]))
    #expect(model.graph.outputs.first?.type == nil)
  }

  @Test func decodesTypedDataFields() throws {
    // float_data packed, then int64_data written one varint per element (unpacked).
    let floats = try ONNXModel(
      serializedBytes: ONNXFixture.model { tensor in
        tensor.int(1, 3)
        tensor.int(2, 1)
        tensor.string(8, "f")
        var packed = ProtobufWriter()
        for value: Float in [1.5, -2, 0.25] {
          packed.float(99, value)
        }
        // Strip the per-value keys: a packed field is the bare fixed32 payloads.
        let payload = stride(from: 0, to: packed.bytes.count, by: 6).flatMap {
          packed.bytes[($0 + 2)..<($0 + 6)]
        }
        tensor.bytes(4, Array(payload))
      })
    #expect(try floats.graph.initializers.first?.floatTensor().scalars == [1.5, -2, 0.25])
    let integers = try ONNXModel(
      serializedBytes: ONNXFixture.model { tensor in
        tensor.int(1, 2)
        tensor.int(2, 7)
        tensor.string(8, "shape")
        tensor.int(7, -1)
        tensor.int(7, 1_280)
      })
    let shape = try #require(integers.graph.initializer(named: "shape"))
    #expect(shape.dataType == .int64)
    #expect(shape.integerValues() == [-1, 1_280])
  }

  @Test(.requiresSharedModels("onnx/efficientnet-lite0.onnx"))
  func enforcesTheFileSizeLimitAndReportsMissingFiles() throws {
    let path = try SharedModels.requiredPath("onnx/efficientnet-lite0.onnx")
    expectModelFormatsError(.limitExceeded) {
      _ = try ONNXModel(
        contentsOf: URL(fileURLWithPath: path), limits: ImportLimits(maximumFileBytes: 1_000_000))
    }
    expectModelFormatsError(.io) {
      _ = try ONNXModel(contentsOf: URL(fileURLWithPath: path + ".absent"))
    }
  }

  @Test func refusesAbsurdDimensionsWithoutAllocating() {
    expectModelFormatsError(.limitExceeded) {
      _ = try ONNXModel(
        serializedBytes: ONNXFixture.model { tensor in
          tensor.int(1, 1 << 40)
          tensor.int(1, 1 << 40)
          tensor.int(2, 1)
          tensor.string(8, "huge")
        })
    }
    expectModelFormatsError(.limitExceeded) {
      _ = try ONNXModel(
        serializedBytes: ONNXFixture.model { tensor in
          for _ in 0..<40 { tensor.int(1, 1) }
          tensor.int(2, 1)
        })
    }
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(
        serializedBytes: ONNXFixture.model { tensor in
          tensor.int(1, -3)
          tensor.int(2, 1)
        })
    }
    // A modest shape whose data is missing must fail on the count, not allocate and read.
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(
        serializedBytes: ONNXFixture.model { tensor in
          tensor.int(1, 1 << 20)
          tensor.int(2, 1)
          tensor.bytes(9, [0, 0, 0, 0])
        })
    }
    let small = ImportLimits(maximumElementCount: 3)
    expectModelFormatsError(.limitExceeded) {
      _ = try ONNXModel(
        serializedBytes: ONNXFixture.model(initializer: ONNXFixture.validInitializer), limits: small
      )
    }
  }

  @Test func refusesBrokenWireFormat() {
    let valid = ONNXFixture.model(initializer: ONNXFixture.validInitializer)
    // Varint overflow: eleven continuation bytes where the IR version's value starts.
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(serializedBytes: [0x08] + [UInt8](repeating: 0xFF, count: 11) + [0x01])
    }
    // A tenth varint byte above 1 overflows 64 bits.
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(serializedBytes: [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02])
    }
    // A length that runs past the end of the buffer.
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(serializedBytes: [0x3A, 0xFF, 0xFF, 0x03])
    }
    // Groups, field number 0, and wire types 6 and 7.
    for bytes: [UInt8] in [[0x0B], [0x00, 0x01], [0x0E], [0x0F]] {
      expectModelFormatsError(.malformedFile, "\(bytes)") {
        _ = try ONNXModel(serializedBytes: bytes)
      }
    }
    expectModelFormatsError(.malformedFile) { _ = try ONNXModel(serializedBytes: []) }
    expectModelFormatsError(.malformedFile) {
      _ = try ONNXModel(serializedBytes: Array(valid.dropLast()))
    }
  }

  @Test func boundsNestingDepth() {
    // Subgraphs nested 100 deep: If -> then_branch -> If -> ...
    var graph = ProtobufWriter()
    graph.string(2, "leaf")
    for _ in 0..<100 {
      var outer = ProtobufWriter()
      outer.message(1) { node in
        node.string(4, "If")
        node.message(5) { attribute in
          attribute.string(1, "then_branch")
          attribute.bytes(6, graph.bytes)
          attribute.int(20, 5)
        }
      }
      graph = outer
    }
    var model = ProtobufWriter()
    model.bytes(7, graph.bytes)
    expectModelFormatsError(.limitExceeded) { _ = try ONNXModel(serializedBytes: model.bytes) }
  }

  /// Hundreds of deterministic mutations of the real model: each ends in a model or a typed error.
  @Test(.requiresSharedModels("onnx/efficientnet-lite0.onnx"))
  func survivesMutationsOfTheReferenceModel() throws {
    let path = try SharedModels.requiredPath("onnx/efficientnet-lite0.onnx")
    let original = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
    let bytes = try FileBytesForTests.read(path)
    var generator = SeededGenerator(seed: 0x0_4E58_2024)
    var outcomes = FuzzOutcomes()
    let variants = ModelMutations.variants(
      of: bytes, generator: &generator, structure: 4_096, region: 65_536, truncationStride: 41,
      randomTruncations: 60)
    for mutated in variants {
      outcomes.record { _ = try ONNXModel(serializedBytes: mutated) }
    }
    print("ONNX fuzz: \(outcomes)")
    #expect(outcomes.total >= 300)
    #expect(outcomes.errors > 0)
    #expect(outcomes.foreignErrors.isEmpty)
    #expect(original.graph.nodes.count == 96)
  }
}
