import CatalogClient
import Foundation
import TestSupport
import Testing

/// Faults a hostile or broken service can produce, each against the fault server on 127.0.0.1
/// (Scripts/odata-servers/fault_server.py), complementing CatalogClientTests' ErrorTests: every
/// call ends in a typed error (or bounded success) within the deadline it was configured with.
@Suite(
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
  .timeLimit(.minutes(2)))
struct FaultTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  /// Slack on top of a configured deadline.
  ///
  /// `.ci/run` runs this suite on its own with `VISION_CATALOG_FAULT_SLACK_SECONDS=2`, so each
  /// deadline is checked to within two seconds. Inside the whole suite (README's command, and
  /// under the sanitizers) the requests run on ``DedicatedThreadExecutor`` (CPU-bound tests hold
  /// the cooperative threads for minutes at a time), but the CPU is still shared; there the
  /// default is 40 s. Without the deadline each of these faults lasts from 60 s (the trickle
  /// gives up) to forever, so even that bound tells a deadline from a hang.
  static let slack: Duration = {
    let variable = ProcessInfo.processInfo.environment["VISION_CATALOG_FAULT_SLACK_SECONDS"]
    guard let seconds = variable.flatMap(Double.init), seconds > 0 else { return .seconds(40) }
    return .milliseconds(Int(seconds * 1000))
  }()

  func provider(
    _ prefix: String, configuration: HTTPCatalogProvider.Configuration
  ) throws -> HTTPCatalogProvider {
    let root = try ODataTestServers.shared(.fault).origin.appendingPathComponent(prefix + "/")
    return HTTPCatalogProvider(serviceRoot: root, version: .v4, configuration: configuration)
  }

  /// The error a paged fetch ends with, and how long it took.
  func failure(
    _ provider: HTTPCatalogProvider, maximumPages: Int = 10
  ) async -> (CatalogError?, Duration) {
    await DedicatedThreadExecutor.shared.run {
      let clock = ContinuousClock()
      let start = clock.now
      let error = await #expect(throws: CatalogError.self) {
        try await provider.fetch(Self.products, maximumPages: maximumPages)
      }
      return (error, clock.now - start)
    }
  }

  @Test func resetMidBody() async throws {
    let (error, elapsed) = await failure(
      try provider("reset", configuration: .init(timeout: 10, totalDeadline: 10)))
    let code = try #require(error?.code)
    // Depending on timing libcurl reports the reset or the short body; both are transport
    // failures, never a parsed page.
    #expect([.unreachable, .malformedResponse].contains(code), "\(String(describing: error))")
    #expect(elapsed < .seconds(10) + Self.slack)
  }

  @Test func trickledBodyHitsTheRequestTimeout() async throws {
    // 4 KiB at 10 bytes per second takes 400 s; the request timeout bounds the whole exchange,
    // not the gap between bytes.
    let (error, elapsed) = await failure(
      try provider("trickle", configuration: .init(timeout: 1.5, totalDeadline: 30)))
    #expect(error?.code == .timeout)
    #expect(elapsed < .milliseconds(1500) + Self.slack)
  }

  @Test func retryAfterLongerThanTheDeadlineIsNotWaitedFor() async throws {
    let (error, elapsed) = await failure(
      try provider(
        "retry-after/3600",
        configuration: .init(
          timeout: 5, maximumRetries: 5, initialDelay: 1, maximumDelay: 3600, totalDeadline: 2)))
    #expect(error?.code == .timeout)
    #expect(error?.httpStatus == 503)
    #expect(elapsed < .seconds(2) + Self.slack)
  }

  @Test func retryAfterIsCappedByThePolicy() async throws {
    let (error, elapsed) = await failure(
      try provider(
        "retry-after/3600",
        configuration: .init(
          timeout: 5, maximumRetries: 2, initialDelay: 0.05, maximumDelay: 0.2)))
    #expect(error?.code == .httpStatus)
    #expect(error?.httpStatus == 503)
    // Honouring the header would wait 3600 s per retry.
    #expect(elapsed < .seconds(20) + Self.slack)
  }

  @Test func deeplyNestedJSONIsRefused() async throws {
    let (error, elapsed) = await failure(
      try provider("deep", configuration: .init(timeout: 10, totalDeadline: 10)))
    #expect(error?.code == .malformedResponse)
    #expect(elapsed < .seconds(10) + Self.slack)
  }

  @Test func largeValidJSONParsesWithinTheLimitAndIsCutBelowIt() async throws {
    let wide = try provider("wide", configuration: .init(timeout: 30, totalDeadline: 30))
    let page = try await DedicatedThreadExecutor.shared.run {
      try await wide.fetch(Self.products, maximumPages: 1)
    }
    #expect(page.entities.count == 20_000)
    let (error, _) = await failure(
      try provider("wide", configuration: .init(maximumResponseBytes: 1 << 20)))
    #expect(error?.code == .responseTooLarge)
  }

  @Test func nextLinkCycleIsDetected() async throws {
    let (error, _) = await failure(
      try provider("cycle", configuration: .init(timeout: 30, totalDeadline: 60)))
    #expect(error?.code == .pagingLimitExceeded)
  }

  @Test func totalDeadlineBoundsEndlessPaging() async throws {
    // Each page is quick, the link never ends and the page cap is high: only the deadline stops.
    let (error, elapsed) = await failure(
      try provider("endless", configuration: .init(timeout: 5, totalDeadline: 1.5)),
      maximumPages: 1_000_000)
    #expect(error?.code == .timeout, "\(String(describing: error)) after \(elapsed)")
    #expect(elapsed < .milliseconds(1500) + Self.slack)
  }
}
