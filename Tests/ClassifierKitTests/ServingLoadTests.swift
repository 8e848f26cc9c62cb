import Foundation
import ImagePipeline
import NeuralCore
import TestSupport
import Testing

@testable import ClassifierKit

/// Hundreds of concurrent callers through the public async API on the shared executor, as a
/// server classifying uploads would call it: every result equals the lone caller's, threads and
/// memory stay bounded, and cancelled callers leave nothing behind.
///
/// Release builds run the issue's load on the default model (1,024 callers on a 12 MP JPEG, 256
/// on a 12 MP WebP) and bound the process's peak threads and resident memory; `.ci/run` runs
/// this suite alone so that the peaks are its own. Debug builds, which `.ci/run` also runs under
/// the address and thread sanitizers, run fewer callers on a small network (a forward pass of
/// the default model takes tens of seconds unoptimized) and bound the executor's own counters,
/// since other suites run in the same process at the same time.
@Suite(.serialized) struct ServingLoadTests {
  static let photos = FormatFixtures.root.appendingPathComponent("serving")
  static let jpeg = photos.appendingPathComponent("photo-12mp.jpg")
  static let webp = photos.appendingPathComponent("photo-12mp.webp")

  static var hasPhotos: Bool {
    FileManager.default.fileExists(atPath: jpeg.path)
      && FileManager.default.fileExists(atPath: webp.path)
  }

  static let skipReason: Comment =
    "the 12 MP serving photos (Scripts/image-fixtures/generate.sh) or the default checkpoint are absent: skipped"

  #if DEBUG
    static let jpegCallers = 48
    static let webpCallers = 8
    static let serialRuns = 2
    static var canRun: Bool { hasPhotos }
    static func model() throws -> NetworkClassifier { try ComputeExecutorTests.smallClassifier() }
  #else
    static let jpegCallers = 1_024
    static let webpCallers = 256
    static let serialRuns = 4
    static var canRun: Bool { hasPhotos && ModelFixtures.classifier != nil }
    static func model() throws -> NetworkClassifier { try ModelFixtures.classifierForPhotos() }
  #endif

  /// The bounds the issue sets for the whole process.
  static let threadBound = 64
  static let residentBoundMebibytes = 600.0

  @Test(.enabled(if: canRun, skipReason))
  func manyCallersOnA12MPJPEGGetTheSerialResultWithinBounds() async throws {
    try await load(Self.jpeg, callers: Self.jpegCallers)
  }

  @Test(.enabled(if: canRun, skipReason))
  func manyCallersOnA12MPWebPGetTheSerialResultWithinBounds() async throws {
    try await load(Self.webp, callers: Self.webpCallers)
  }

  @Test(.enabled(if: canRun, skipReason))
  func cancelledCallersUnderLoadLeaveNothingBehind() async throws {
    let model = try Self.model()
    let expected = try await model.classify(.file(Self.jpeg)).classifications
    let executor = ComputeExecutor.shared
    let before = executor.statistics
    let tasks = (0..<Self.jpegCallers).map { _ in
      Task { try await model.classify(.file(Self.jpeg)).classifications }
    }
    for task in tasks.enumerated() where task.offset % 2 == 1 { task.element.cancel() }
    var served = 0
    var cancelled = 0
    for (index, task) in tasks.enumerated() {
      switch await task.result {
      case .success(let classifications):
        #expect(classifications == expected, "caller \(index) got another result")
        served += 1
      case .failure(let error as ClassificationError) where error.code == .cancelled:
        #expect(index % 2 == 1, "caller \(index) was cancelled without being asked")
        cancelled += 1
      case .failure(let error):
        Issue.record("caller \(index) failed: \(error)")
      }
    }
    #expect(served + cancelled == Self.jpegCallers)
    #expect(cancelled > 0, "no waiting caller was cancelled")
    try await ComputeExecutorTests.waitUntil {
      let now = executor.statistics
      return now.queuedCount == 0 && now.runningCount == 0 && now.batchingCount == 0
    }
    let after = executor.statistics
    #expect(after.reservedBytes == 0)
    #expect(after.cancelledCount - before.cancelledCount >= cancelled)
    print(
      "cancelled under load: \(cancelled) of \(Self.jpegCallers) callers cancelled while "
        + "waiting, \(served) served")
  }

  /// Dynamic batching hands each caller the scores it would get alone only if a photo's scores
  /// do not depend on the photos batched with it nor on the threads its worker may use.
  @Test(.enabled(if: canRun, skipReason))
  func aPhotosScoresDoNotDependOnItsBatchOrThreads() throws {
    let model = try Self.model()
    let input = try model.prepareInput(.file(Self.jpeg), preparation: .default).input
    let alone = try model.classify(prepared: [input], options: .default)
    for size in 1...model.maximumBatchSize {
      for threads in [1, 2] {
        let inputs = Array(repeating: input, count: size)
        let results = try ComputeExecutor.withThreadShare(threads) {
          try model.classify(prepared: inputs, options: .default)
        }
        #expect(
          results.allSatisfy { $0 == alone[0] },
          "a batch of \(size) on \(threads) threads scores the photo otherwise")
      }
    }
  }

  /// Classifies `file` alone, then from `callers` concurrent tasks with batching on and off,
  /// checking every result and the bounds, and printing throughput and latency.
  private func load(_ file: URL, callers: Int) async throws {
    let model = try Self.model()
    let executor = ComputeExecutor.shared
    let expected = try await model.classify(.file(file)).classifications
    let clock = ContinuousClock()
    let serialRuns = Self.serialRuns
    let serialStart = clock.now
    for _ in 0..<serialRuns {
      #expect(try await model.classify(.file(file)).classifications == expected)
    }
    let serial = (clock.now - serialStart) / serialRuns
    print("\(file.lastPathComponent): serial \(Self.milliseconds(serial)) ms/photo")

    let original = executor.limits
    defer { executor.limits = original }
    for window in [Duration.zero, original.batchingWindow] {
      executor.limits.batchingWindow = window
      let before = executor.statistics
      let sampler = ProcessSampler()
      let start = clock.now
      let latencies = try await withThrowingTaskGroup(of: Duration.self) { group in
        for call in 0..<callers {
          group.addTask {
            let begin = clock.now
            let report = try await model.classify(.file(file))
            #expect(report.classifications == expected, "caller \(call) got another result")
            return clock.now - begin
          }
        }
        return try await group.reduce(into: [Duration]()) { $0.append($1) }
      }
      let elapsed = clock.now - start
      let peaks = sampler.stop()
      let after = executor.statistics
      #expect(latencies.count == callers)
      #expect(after.peakRunningCount <= executor.limits.workerCount)
      #expect(after.workerCount <= executor.limits.workerCount)
      #expect(after.peakReservedBytes <= executor.limits.memoryBudget)
      #if !DEBUG
        #expect(peaks.threads < Self.threadBound)
        let peakResident = (ProcessSampler.status()["VmHWM"] ?? 0) / 1024
        #expect(
          peakResident < Self.residentBoundMebibytes, "peak resident memory \(peakResident) MiB")
      #endif
      let sorted = latencies.sorted()
      let batches = after.batchCount - before.batchCount
      let batched = after.batchedPhotoCount - before.batchedPhotoCount
      let perPhoto = Self.milliseconds(elapsed / callers)
      let photosPerSecond = String(format: "%.1f", Double(callers) / elapsed.seconds)
      let p50 = Self.milliseconds(sorted[callers / 2])
      let p95 = Self.milliseconds(sorted[callers * 95 / 100])
      let highWater = Int((ProcessSampler.status()["VmHWM"] ?? 0) / 1024)
      let kernels = (try? InferenceSession.selectedKernelSet()) ?? "?"
      print(
        "\(file.lastPathComponent): \(callers) callers, batching window "
          + "\(Self.milliseconds(window)) ms: \(perPhoto) ms/photo (\(photosPerSecond) photos/s; "
          + "serial \(Self.milliseconds(serial))), latency p50 \(p50) ms p95 \(p95) ms, "
          + "\(batched) photos in \(batches) network calls, peak threads \(peaks.threads), peak "
          + "RSS \(Int(peaks.residentMebibytes)) MiB (VmHWM \(highWater) MiB), kernels \(kernels)")
    }
  }

  private static func milliseconds(_ duration: Duration) -> String {
    String(format: "%.2f", duration.seconds * 1000)
  }
}

extension Duration {
  /// The duration in seconds.
  fileprivate var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
