import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import NeuralLayers
import Synchronization
import TestSupport
import Testing

@testable import ClassifierKit

/// The executor's promises, each on an executor of its own so the tests cannot disturb each
/// other: callers get their own results however photos are batched, a full queue refuses at
/// once, cancelled callers leave nothing behind, the memory budget serializes large photos, and a
/// bad photo fails only its caller.
@Suite struct ComputeExecutorTests {
  /// A small trained-looking network (a strided convolution, global pooling, a dense layer) on a
  /// 32 x 32 input, with fixed pseudo-random weights: cheap enough for debug and sanitizer
  /// builds, and it goes through the same batching path as the default model.
  static func smallClassifier() throws -> NetworkClassifier {
    var state: UInt32 = 0x9E37_79B9
    func values(_ count: Int) -> [Float] {
      (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(Int(state >> 20) - 2048) / 4096
      }
    }
    let network = try Sequential(
      Conv2D(
        name: "conv", inputChannels: 3, outputChannels: 8, kernelSize: 3, stride: 2,
        activation: .relu),
      Pool2D.globalAverage(), Flatten(),
      Dense(name: "fc", inputFeatures: 8, outputFeatures: 5)
    ).loading([
      "conv.weight": try Tensor(shape: [8, 3, 3, 3], scalars: values(216)),
      "conv.bias": try Tensor(shape: [8], scalars: values(8)),
      "fc.weight": try Tensor(shape: [5, 8], scalars: values(40)),
      "fc.bias": try Tensor(shape: [5], scalars: values(5)),
    ])
    return NetworkClassifier(
      network: network,
      description: ModelDescription(
        name: "small", input: .efficientNetLite(size: 32),
        labels: ["a", "b", "c", "d", "e"]))
  }

  /// Distinct 160 x 120 JPEG photos: a different gradient and grain for each, so that a result
  /// handed to the wrong caller shows.
  static func photos(_ count: Int) throws -> [Data] {
    try (0..<count).map { index in
      let noise = ImageFixtures.noise(width: 160, height: 120, channels: 3)
      let pixels = (0..<(160 * 120 * 3)).map { offset -> UInt8 in
        let channel = offset % 3
        let x = (offset / 3) % 160
        let y = offset / 480
        let base = (x * (index + 1) + y * (channel + 2) * 3 + index * 37) % 256
        return UInt8((base + Int(noise[offset]) / 4) % 256)
      }
      let image = try RasterImage(width: 160, height: 120, format: .rgb, pixels: pixels)
      return Data(try JPEGEncoder(quality: 90).encode(image))
    }
  }

  /// A model that blocks in `classify(prepared:)` until its gate opens, to hold a worker.
  struct GatedModel: ImageClassificationModel {
    let labels = ["open"]
    let inputSpec = ModelInputSpec.efficientNetLite(size: 8)
    let gate: Gate

    func classify(prepared input: ModelInput, options: ClassificationOptions)
      throws(ClassificationError) -> [Classification]
    {
      gate.open.wait()
      gate.open.signal()
      return Classification.ranked(scores: [1], labels: labels, options: options)
    }
  }

  /// The gate of a ``GatedModel``.
  final class Gate: Sendable {
    let open = DispatchSemaphore(value: 0)
  }

  /// Waits, without blocking a thread of the cooperative pool, until `condition` holds.
  static func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(5)) }
  }

  @Test func concurrentCallersGetTheirOwnResultsInBatches() async throws {
    let model = try Self.smallClassifier()
    let photos = try Self.photos(16)
    let options = ClassificationOptions(maximumCount: 5)
    let serial = try photos.map { try model.classify(.data($0), options: options) }
    let executor = ComputeExecutor(
      limits: ComputeLimits(workerCount: 2, batchingWindow: .milliseconds(50)))
    let rounds = 8
    let results = try await withThrowingTaskGroup(of: (Int, [Classification]).self) { group in
      for call in 0..<(photos.count * rounds) {
        group.addTask {
          let report = try await executor.classify(
            .data(photos[call % photos.count]), with: model, preparation: .default,
            options: options)
          return (call, report.classifications)
        }
      }
      return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
    #expect(results.count == photos.count * rounds)
    for (call, classifications) in results {
      #expect(
        classifications == serial[call % photos.count].classifications,
        "call \(call) got another photo's result or a different one")
    }
    // The last worker may still be counting itself out after its callers were answered.
    try await Self.waitUntil { executor.statistics.runningCount == 0 }
    let statistics = executor.statistics
    #expect(statistics.batchedPhotoCount == photos.count * rounds)
    #expect(statistics.batchCount < statistics.batchedPhotoCount, "no photos were batched")
    #expect(statistics.peakRunningCount <= 2)
    #expect(statistics.completedCount == photos.count * rounds)
    #expect(statistics.queuedCount == 0 && statistics.runningCount == 0)
    #expect(statistics.batchingCount == 0 && statistics.reservedBytes == 0)
  }

  @Test func aFullQueueRefusesAtOnceAndServesTheRest() async throws {
    let gate = Gate()
    let model = GatedModel(gate: gate)
    let executor = ComputeExecutor(
      limits: ComputeLimits(workerCount: 1, maximumQueuedCount: 2))
    let photo = try Self.photos(1)[0]
    let running = Task { try await executor.run(.data(photo), with: model) }
    try await Self.waitUntil { executor.statistics.runningCount == 1 }
    let waiting = (0..<2).map { _ in Task { try await executor.run(.data(photo), with: model) } }
    try await Self.waitUntil { executor.statistics.queuedCount == 2 }
    do {
      _ = try await executor.run(.data(photo), with: model)
      Issue.record("a fourth caller was accepted beyond the queue limit")
    } catch {
      #expect(error.code == .overloaded)
      #expect(error.message.contains("maximumQueuedCount is 2"))
    }
    gate.open.signal()
    _ = try await running.value
    for task in waiting { _ = try await task.value }
    let statistics = executor.statistics
    #expect(statistics.overloadedCount == 1)
    #expect(statistics.completedCount == 3)
  }

  @Test func cancelledCallersLeaveNothingBehind() async throws {
    let gate = Gate()
    let model = GatedModel(gate: gate)
    let executor = ComputeExecutor(limits: ComputeLimits(workerCount: 1))
    let photo = try Self.photos(1)[0]
    let running = Task { try await executor.run(.data(photo), with: model) }
    try await Self.waitUntil { executor.statistics.runningCount == 1 }
    let waiting = (0..<20).map { _ in
      Task { try await executor.run(.data(photo), with: model) }
    }
    try await Self.waitUntil { executor.statistics.queuedCount == 20 }
    for task in waiting { task.cancel() }
    for task in waiting {
      let result = await task.result
      guard case .failure(let error) = result, let error = error as? ClassificationError else {
        Issue.record("a cancelled caller was not told so: \(result)")
        continue
      }
      #expect(error.code == .cancelled)
    }
    #expect(executor.statistics.queuedCount == 0)
    gate.open.signal()
    _ = try await running.value
    try await Self.waitUntil { executor.statistics.runningCount == 0 }
    let statistics = executor.statistics
    #expect(statistics.cancelledCount == 20)
    #expect(statistics.completedCount == 1)
    #expect(statistics.queuedCount == 0 && statistics.runningCount == 0)
    #expect(statistics.reservedBytes == 0)
  }

  @Test func theMemoryBudgetDecodesOnePhotoAtATime() async throws {
    let model = try Self.smallClassifier()
    let photos = try Self.photos(8)
    let executor = ComputeExecutor(limits: ComputeLimits(workerCount: 2, memoryBudget: 1))
    let largest =
      try photos.map { data in
        let loaded = try ImageSource.data(data).loaded()
        return ComputeExecutor.decodingCost(
          of: loaded,
          plan: ComputeExecutor.headerPlan(of: loaded, for: model.inputSpec, preparation: .default))
      }.max() ?? 0
    try await withThrowingTaskGroup(of: Void.self) { group in
      for photo in photos {
        group.addTask { _ = try await executor.run(.data(photo), with: model) }
      }
      try await group.waitForAll()
    }
    let statistics = executor.statistics
    #expect(statistics.completedCount == photos.count)
    #expect(
      statistics.peakReservedBytes <= largest,
      "two photos were decoded at once within a one-byte budget")
  }

  @Test func aBadPhotoFailsOnlyItsCaller() async throws {
    let model = try Self.smallClassifier()
    var photos = try Self.photos(6)
    photos[3] = photos[3].prefix(photos[3].count / 3)
    let executor = ComputeExecutor(
      limits: ComputeLimits(workerCount: 2, batchingWindow: .milliseconds(50)))
    let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
      for (index, photo) in photos.enumerated() {
        group.addTask {
          let report = try? await executor.run(.data(photo, name: "photo \(index)"), with: model)
          return (index, report != nil)
        }
      }
      return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
    #expect(outcomes == [0: true, 1: true, 2: true, 3: false, 4: true, 5: true])
    #expect(executor.statistics.completedCount == photos.count, "a failed caller is served too")
  }

  @Test func theLimitsAreClampedToUsableValues() {
    let limits = ComputeLimits(
      workerCount: 0, memoryBudget: -5, maximumQueuedCount: -1, batchingWindow: .seconds(-1))
    #expect(limits.workerCount == 1)
    #expect(limits.memoryBudget == 1)
    #expect(limits.maximumQueuedCount == 0)
    #expect(limits.batchingWindow == .zero)
  }
}

extension ComputeExecutor {
  /// Classifies with default preparation and options, for the tests.
  fileprivate func run<Model: ImageClassificationModel>(
    _ source: ImageSource, with model: Model
  ) async throws(ClassificationError) -> ClassificationReport {
    try await classify(source, with: model, preparation: .default, options: .default)
  }
}
