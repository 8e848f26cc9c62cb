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
  /// FoundationNetworking's truncation failed every attempt at once; a loaded machine may let
  /// one attempt run out its full deadline, so a timeout counts against the test only when it came
  /// early, and one of a few attempts must answer.
  @Test(arguments: [0.95])
  func subSecondTimeoutAllowsAQuickAnswer(timeout: Double) async throws {
    let root = try ODataTestServers.shared(.fault).origin.appendingPathComponent("endless/")
    let request = HTTPRequest(url: root.appendingPathComponent("Products"), timeout: timeout)
    var answered = false
    for _ in 0..<8 where !answered {
      // On a thread of its own, as FaultTests: the whole suite's CPU-bound tests hold the
      // cooperative threads for minutes at a time.
      let start = ContinuousClock.now
      let outcome = await DedicatedThreadExecutor.shared.run {
        do throws(CatalogError) {
          return Result<HTTPResponse, CatalogError>.success(
            try await URLSessionTransport().send(request))
        } catch {
          return .failure(error)
        }
      }
      switch outcome {
      case .success(let response):
        #expect(response.statusCode == 200)
        answered = true
      case .failure(let error):
        let waited = ContinuousClock.now - start
        #expect(error.code == .timeout, "\(error)")
        #expect(waited >= .seconds(timeout * 0.9), "timed out after \(waited): \(error)")
        print("sub-second timeout: an attempt ran out its \(timeout) s on a loaded machine")
      }
    }
    #expect(answered, "no attempt answered within \(timeout) s")
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
