import ClassifierKit
import NeuralCore
import Testing

/// `ClassificationError.Code` keeps the text it printed as an enum, and `EfficientNetLite`
/// reports arguments it cannot build a network from instead of trapping.
struct ErrorCodeTests {
  @Test func codeDescriptionsAreTheirNames() {
    let codes: [(ClassificationError.Code, String)] = [
      (.invalidImage, "invalidImage"), (.modelUnavailable, "modelUnavailable"),
      (.invalidModelDescription, "invalidModelDescription"),
      (.inferenceFailed, "inferenceFailed"), (.invalidArgument, "invalidArgument"),
    ]
    for (code, name) in codes {
      #expect("\(code)" == name)
      #expect(String(describing: code) == name)
    }
    #expect(Set(codes.map(\.0)).count == codes.count)
    #expect(
      "\(ClassificationError(.inferenceFailed, "no output"))" == "inferenceFailed: no output")
  }

  static let stage = EfficientNetLite.Stage(
    repeats: 1, kernelSize: 3, stride: 1, expansion: 1, inputChannels: 8, outputChannels: 8)

  /// The error building a network throws, or `nil` (recorded) when it builds.
  func error(_ build: () throws(NeuralCoreError) -> EfficientNetLite) -> NeuralCoreError? {
    do {
      _ = try build()
      Issue.record("expected an invalidArgument error")
      return nil
    } catch {
      #expect(error.code == .invalidArgument, "\(error)")
      return error
    }
  }

  @Test func efficientNetRejectsArgumentsItCannotBuild() {
    let noStage = error { () throws(NeuralCoreError) in
      try EfficientNetLite(stages: [], inputSize: 32)
    }
    #expect(noStage?.message == "EfficientNetLite needs at least one stage")
    var empty = Self.stage
    empty.repeats = 0
    let noBlock = error { () throws(NeuralCoreError) in
      try EfficientNetLite(stages: [Self.stage, empty], inputSize: 32, stemChannels: 8)
    }
    #expect(noBlock?.message == "EfficientNetLite stage 1: repeats must be positive, got 0")
    let noClasses = error { () throws(NeuralCoreError) in
      try EfficientNetLite(stages: [Self.stage], inputSize: 32, stemChannels: 8, classCount: 0)
    }
    #expect(noClasses?.message == "Dense '_fc': outputFeatures must be positive, got 0")
    var wide = Self.stage
    wide.expansion = .max
    let overflow = error { () throws(NeuralCoreError) in
      try EfficientNetLite(stages: [wide], inputSize: 32, stemChannels: 8)
    }
    #expect(overflow?.message.hasPrefix("_blocks.0: 8 channels times expansion") == true)
  }

  @Test func lite0StillBuilds() {
    #expect(EfficientNetLite.lite0().classCount == 1000)
  }
}
