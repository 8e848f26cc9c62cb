/// The bounds a server keeps whatever its clients do.
package struct HTTPServerLimits: Sendable {
  /// The most connections open at once; more wait in the listen backlog (`backlog`).
  ///
  /// Each may hold a body being read or waiting for a worker, so this bounds their memory.
  package var connections = 64
  /// The listen backlog: connections the kernel holds until one is accepted.
  package var backlog = 4096
  /// Seconds a connection may stay idle (nothing read or written) before it is closed, so a
  /// slow client cannot hold a connection.
  package var idleTimeoutSeconds = 30
  /// Bytes for the request line and headers of one connection; larger headers get 431.
  package var headerBytes = 32 * 1024
  /// The largest body (or multipart `image` field); larger ones get 413.
  package var bodyBytes = 64 * 1024 * 1024

  /// The defaults.
  package init() {}
}
