import CatalogClient
import Foundation
import TestSupport
import Testing

/// Sub-second timeouts (which a total deadline hands out as it runs low) must still let a quick
/// answer through: FoundationNetworking truncated them to zero seconds.
@Suite(
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
  .timeLimit(.minutes(3)))
struct TransportTimeoutTests {
  @Test(arguments: [0.95])
  func subSecondTimeoutAllowsAQuickAnswer(timeout: Double) async throws {
    let root = try ODataTestServers.shared(.fault).origin.appendingPathComponent("endless/")
    let request = HTTPRequest(url: root.appendingPathComponent("Products"), timeout: timeout)
    // On a thread of its own, as FaultTests: the whole suite's CPU-bound tests hold the
    // cooperative threads for minutes at a time.
    let response = try await DedicatedThreadExecutor.shared.run {
      try await URLSessionTransport().send(request)
    }
    #expect(response.statusCode == 200)
  }

  @Test func subSecondTimeoutStillEndsASlowAnswer() async throws {
    let root = try ODataTestServers.shared(.fault).origin.appendingPathComponent("slow/")
    let request = HTTPRequest(url: root.appendingPathComponent("Products"), timeout: 0.5)
    let error = await #expect(throws: CatalogError.self) {
      try await URLSessionTransport().send(request)
    }
    #expect(error?.code == .timeout)
  }
}
