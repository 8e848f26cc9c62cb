import Foundation
import NeuralCore
import WebService

/// `vision-catalog serve`: listens at once, answers `/healthz` while the model and catalog load,
/// turns `/readyz` to 200 once ``ready(_:)`` gives it the service, and stops on SIGTERM or SIGINT
/// after finishing the requests in flight.
package final class CatalogServer: Sendable {
  /// The port it listens on.
  package var port: Int { server.port }
  private let server: HTTPServer
  private let service: Locked<CatalogService?>

  /// Starts listening; until ``ready(_:)`` every photo route answers 503.
  ///
  /// - Parameters:
  ///   - host: The address to listen on (`127.0.0.1` keeps it to this machine).
  ///   - port: The port; 0 picks a free one.
  ///   - connections: The most connections open at once; more wait in the listen backlog.
  /// - Throws: ``VisionCatalogError`` at stage `configuration` when it cannot listen.
  package init(host: String, port: Int, connections: Int? = nil) throws(VisionCatalogError) {
    var limits = HTTPServerLimits()
    if let connections { limits.connections = connections }
    let service = Locked<CatalogService?>(nil)
    self.service = service
    do {
      server = try HTTPServer(host: host, port: port, limits: limits) { request in
        guard let ready = service.withLock({ $0 }) else {
          return Self.loading(request)
        }
        return await ready.respond(to: request)
      }
    } catch {
      throw VisionCatalogError(.configuration, "cannot serve on \(host):\(port): \(error.message)")
    }
  }

  /// Starts answering with `finder`.
  package func ready(_ finder: ProductFinder) {
    var service = CatalogService(finder: finder, metrics: ServiceMetrics(prefix: "visioncatalog"))
    service.inFlight = { [server] in server.inFlight }
    self.service.withLock { $0 = service }
  }

  /// Waits for SIGTERM or SIGINT, then stops accepting, lets the requests in flight finish
  /// within `drain`, and closes; returns the signal's name.
  package func runUntilTerminated(drain: Duration) async -> String {
    let signal = await TerminationSignal.wait()
    await server.stop(within: drain)
    return signal
  }

  /// Stops as ``runUntilTerminated(drain:)`` does after its signal.
  package func stop(within drain: Duration) async {
    await server.stop(within: drain)
  }

  /// The answers while the model loads: alive, not ready.
  private static func loading(_ request: WebRequest) -> WebResponse {
    switch ServiceRoute(path: request.path).known {
    case .health: return CatalogService.json(200, ["status": "ok"])
    case .page: return ServicePage.response
    case nil: return ServiceFailure(404, "not_found", "no route \(request.path)").response
    default: return ServiceFailure(503, "loading", "the model and catalog are loading").response
    }
  }
}
