internal import CHTTPServer
import Dispatch

/// SIGTERM and SIGINT as an event to wait for, as service managers (systemd, Kubernetes) stop a
/// process: the process no longer dies of them, and ``wait()`` returns when one arrives.
package enum TerminationSignal {
  /// Waits for SIGTERM or SIGINT; returns the signal's name.
  package static func wait() async -> String {
    chs_ignore_termination_signals()
    let queue = DispatchQueue(label: "termination-signals")
    return await withCheckedContinuation { continuation in
      let fired = SignalOnce(continuation)
      // On the serial queue the handlers run on, so none runs before the sources are kept.
      queue.async {
        fired.keep(
          [(chs_sigterm(), "SIGTERM"), (chs_sigint(), "SIGINT")].map { number, name in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { fired.fire(name) }
            source.resume()
            return source
          })
      }
    }
  }
}

/// Resumes the waiting task once, on the signal queue, and keeps the sources alive until then.
private final class SignalOnce: @unchecked Sendable {
  // Safety of @unchecked Sendable: `continuation` and `sources` are touched only on the signal
  // queue.
  private var continuation: CheckedContinuation<String, Never>?
  private var sources: [any DispatchSourceSignal] = []

  init(_ continuation: CheckedContinuation<String, Never>) {
    self.continuation = continuation
  }

  func keep(_ sources: [any DispatchSourceSignal]) {
    self.sources = sources
  }

  func fire(_ name: String) {
    guard let continuation else { return }
    self.continuation = nil
    for source in sources { source.cancel() }
    sources = []
    continuation.resume(returning: name)
  }
}
