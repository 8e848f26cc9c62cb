import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

/// Core ML files this library cannot run say why, and damaged files end in a typed error.
@Suite(.enabled(if: CoreMLFixtures.isAvailable, Comment(rawValue: CoreMLFixtures.skipReason)))
struct CoreMLRobustnessTests {
  static func fixture(_ name: String) -> URL { CoreMLFixtures.root.appendingPathComponent(name) }

  @Test func aCreateMLClassifierSaysItsWeightsAreInApplesOS() {
    let error = #expect(throws: ModelFormatsError.self) {
      try CoreMLModel(contentsOf: Self.fixture("createml-scene-print.mlmodel"))
    }
    #expect(error?.code == .unsupported)
    #expect(
      error?.message.contains("Create ML image classifier") == true, "\(String(describing: error))")
    #expect(error?.message.contains("Vision feature print") == true)
  }

  @Test func anMLProgramsModelFileAloneAsksForItsPackage() throws {
    let model = Self.fixture("mobilenet_v2-mlprogram.mlpackage/Data/com.apple.CoreML/model.mlmodel")
    let error = #expect(throws: ModelFormatsError.self) {
      try CoreMLModel(serializedBytes: FileBytesForTests.read(model.path))
    }
    #expect(error?.code == .unsupported)
    #expect(error?.message.contains(".mlpackage folder") == true, "\(String(describing: error))")
  }

  /// Mutated programs with the package's real weights, and mutated weight files (their
  /// header and first records, and truncations) under the real program: every outcome is a
  /// model or a `ModelFormatsError`, and the first mutant that still reads is planned and run.
  @Test func survivesMutationsOfAnMLProgram() throws {
    // The small vision transformer: FP16 weights and 17 operation types, read in well under a
    // second even in debug builds, so each mutant's weights are all read.
    let package = Self.fixture("mlprogram-vit-fp16-rgb.mlpackage/Data/com.apple.CoreML")
    let program = try FileBytesForTests.read(package.appendingPathComponent("model.mlmodel").path)
    let weights = try FileBytesForTests.read(
      package.appendingPathComponent("weights/weight.bin").path)
    var generator = SeededGenerator(seed: 0x0_C0DE_2029)
    var outcomes = FuzzOutcomes()
    var planned = 0
    func attempt(_ model: [UInt8], _ blob: [UInt8]) {
      outcomes.record {
        let model = try CoreMLModel(serializedBytes: model, limits: .default) {
          _ throws(ModelFormatsError) in try MILBlobFile(bytes: blob)
        }
        guard planned < 1 else { return }
        planned += 1
        let session = try InferenceSession(model: model.graph)
        let input = try Tensor(repeating: 128, shape: [1, 3, 224, 224])
        _ = try session.run([model.graph.graph.inputs[0].name: input])
      }
    }
    for mutated in ModelMutations.variants(
      of: program, generator: &generator, structure: 2_048, region: 8_192, truncationStride: 997,
      randomTruncations: 20, flips: 60)
    {
      attempt(mutated, weights)
    }
    // The weights: the header and the first metadata records, and truncations anywhere.
    let head = Array(weights.prefix(4_096))
    for mutated in ModelMutations.variants(
      of: head, generator: &generator, structure: 512, region: 4_096, truncationStride: 61,
      randomTruncations: 0, flips: 40)
    {
      attempt(program, mutated + weights.dropFirst(head.count))
    }
    for cut in stride(from: 0, to: weights.count, by: weights.count / 7 + 1) {
      attempt(program, Array(weights.prefix(cut)))
    }
    print("ML Program fuzz: \(outcomes), \(planned) planned and run")
    #expect(outcomes.total >= 150)
    #expect(outcomes.errors > 0)
    #expect(outcomes.foreignErrors.isEmpty, "\(outcomes.foreignErrors.prefix(3))")
  }

  @Test func anONNXFileIsNotTakenForCoreML() throws {
    let error = #expect(throws: ModelFormatsError.self) {
      try CoreMLModel(serializedBytes: Array("not a model at all".utf8))
    }
    #expect(error?.code == .malformedFile || error?.code == .unsupported)
  }

  @Test func survivesMutationsOfAConvertedModel() throws {
    let path = Self.fixture("squeezenet1_1-lut4-bgr.mlmodel").path
    let bytes = try FileBytesForTests.read(path)
    var generator = SeededGenerator(seed: 0x0_C0DE_2026)
    var outcomes = FuzzOutcomes()
    var planned = 0
    // The first parsed mutant is also planned and run (planning takes seconds in debug
    // builds), so inconsistent layers must be refused there too.
    func attempt(_ mutated: [UInt8]) {
      outcomes.record {
        let model = try CoreMLModel(serializedBytes: mutated)
        guard planned < 1 else { return }
        planned += 1
        let session = try InferenceSession(model: model.graph)
        let input = try Tensor(repeating: 128, shape: [1, 3, 224, 224])
        _ = try session.run([model.graph.graph.inputs[0].name: input])
      }
    }
    let variants = ModelMutations.variants(
      of: bytes, generator: &generator, structure: 4_096, region: 16_384, truncationStride: 37,
      randomTruncations: 40, flips: 80)
    for mutated in variants { attempt(mutated) }
    print("Core ML fuzz: \(outcomes), \(planned) planned and run")
    #expect(outcomes.total >= 250)
    #expect(outcomes.errors > 0)
    #expect(outcomes.foreignErrors.isEmpty, "\(outcomes.foreignErrors.prefix(3))")
  }

}

/// Core ML models written field by field, so no fixture is needed.
struct CoreMLWrittenModelTests {
  /// A small network written field by field: a 4 x 4 RGB image into one convolution.
  static func network(
    outputChannels: Int64, kernelChannels: Int64, weights: Int, softmax: Bool = false,
    then extra: ExtraLayer? = nil
  ) -> [UInt8] {
    var writer = ProtobufWriter()
    writer.int(1, 4)
    writer.imageDescription(width: 4, height: 4)
    writer.message(500) { network in
      network.message(1) { layer in
        layer.string(1, "conv")
        layer.string(2, "image")
        layer.string(3, "out")
        layer.message(100) { conv in
          conv.int(1, outputChannels)
          conv.int(2, kernelChannels)
          conv.int(20, 1)
          conv.int(20, 1)
          conv.message(90) { params in
            params.bytes(1, [UInt8](repeating: 0, count: 4 * weights))
          }
        }
      }
      if softmax {
        network.message(1) { layer in
          layer.string(1, "probabilities")
          layer.string(2, "out")
          layer.string(3, "probs")
          layer.message(175) { _ in }
        }
      }
      if let extra {
        network.message(1) { layer in
          layer.string(1, "odd")
          for input in extra.inputs { layer.string(2, input) }
          layer.string(3, "odd_out")
          layer.message(extra.kind, extra.fill)
        }
      }
    }
    return writer.bytes
  }

  /// A layer after the convolution, named `odd`: its kind (the layer one-of field), inputs and
  /// parameters.
  struct ExtraLayer {
    var kind: Int
    var inputs = ["out"]
    var fill: (inout ProtobufWriter) -> Void = { _ in }
  }

  @Test func aLayerThatDoesNotRunIsNamedWithTheReason() {
    let cases: [(ExtraLayer, String)] = [
      (ExtraLayer(kind: 120) { $0.int(1, 2) }, "L2 pooling"),
      (ExtraLayer(kind: 190, inputs: ["out", "image"]), "second input"),
      (
        ExtraLayer(kind: 160) { batchnorm in
          batchnorm.int(1, 2)
          batchnorm.int(5, 1)
        }, "whole batch"
      ),
      (ExtraLayer(kind: 310) { for axis in [1, 0, 2, 3] { $0.int(1, Int64(axis)) } }, "sequence"),
      (ExtraLayer(kind: 1500), "does not run"),
    ]
    for (extra, reason) in cases {
      let error = #expect(throws: ModelFormatsError.self) {
        try CoreMLModel(
          serializedBytes: Self.network(
            outputChannels: 2, kernelChannels: 3, weights: 6, then: extra))
      }
      #expect(error?.code == .unsupported, "\(extra.kind): \(String(describing: error))")
      #expect(error?.message.contains("'odd'") == true, "\(String(describing: error))")
      #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
    }
  }

  @Test func aWrittenNetworkRuns() throws {
    let model = try CoreMLModel(
      serializedBytes: Self.network(outputChannels: 2, kernelChannels: 3, weights: 6))
    let session = try InferenceSession(model: model.graph)
    let output = try session.run(
      [model.graph.graph.inputs[0].name: Tensor(repeating: 1, shape: [1, 3, 4, 4])])
    #expect(output[model.scoresOutput]?.shape == [1, 2, 4, 4])
  }

  @Test func aNetworkEndingInASoftmaxSaysItsScoresAreProbabilities() throws {
    let plain = try CoreMLModel(
      serializedBytes: Self.network(outputChannels: 2, kernelChannels: 3, weights: 6))
    #expect(!plain.scoresAreProbabilities && plain.scoresOutput == "out")
    let model = try CoreMLModel(
      serializedBytes: Self.network(
        outputChannels: 2, kernelChannels: 3, weights: 6, softmax: true))
    #expect(model.scoresAreProbabilities && model.scoresOutput == "probs")
    let session = try InferenceSession(coreMLModel: model)
    let output = try #require(
      try session.run([model.inputName: Tensor(repeating: 1, shape: [1, 3, 4, 4])])["probs"])
    // Zero weights: both channels score 0, so each has probability 1/2.
    #expect(output.scalars.allSatisfy { abs($0 - 0.5) < 1e-6 })
  }

  @Test func aHugeDeclaredWeightCountIsRefusedBeforeAllocating() {
    let error = #expect(throws: ModelFormatsError.self) {
      try CoreMLModel(
        serializedBytes: Self.network(outputChannels: 1 << 20, kernelChannels: 1 << 20, weights: 6))
    }
    #expect(error?.code == .limitExceeded, "\(String(describing: error))")
  }

  @Test func weightsThatDoNotMatchTheLayerAreRefused() {
    let error = #expect(throws: ModelFormatsError.self) {
      try CoreMLModel(
        serializedBytes: Self.network(outputChannels: 2, kernelChannels: 3, weights: 5))
    }
    #expect(error?.code == .malformedFile, "\(String(describing: error))")
    #expect(error?.message.contains("needs 6 weights") == true)
  }
}
