internal import CHTTPServer
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: one polling thread reads requests, and each complete
/// request runs the handler as a task while its connection waits, suspended.
///
/// Bounded whatever the clients do: connections past ``HTTPServerLimits/connections`` wait in
/// the kernel's backlog, so at most that many requests (and bodies) are held at once; idle
/// connections close after ``HTTPServerLimits/idleTimeoutSeconds``; larger headers and bodies
/// are refused. A client that disconnects before its answer cancels its handler's task.
package final class HTTPServer: Sendable {
  /// Answers one request; cancelled when its client goes away.
  package typealias Handler = @Sendable (WebRequest) async -> WebResponse

  /// The port the server listens on (the one picked when 0 was asked for).
  package let port: Int
  private let state: ServerState

  /// Starts listening.
  ///
  /// - Parameters:
  ///   - host: An IPv4 or IPv6 address literal, such as `127.0.0.1` or `::1`; `0.0.0.0` for
  ///     every IPv4 address.
  ///   - port: The port, or 0 for a free one.
  ///   - limits: Connection, header, body and time limits.
  ///   - handler: Answers each request.
  /// - Throws: ``WebServiceError`` with code `cannotListen`, or `invalidArgument` for a host
  ///   that is not an address or a limit out of range.
  package init(
    host: String, port: Int, limits: HTTPServerLimits = HTTPServerLimits(),
    handler: @escaping Handler
  ) throws(WebServiceError) {
    guard (0...65_535).contains(port) else {
      throw WebServiceError(.invalidArgument, "port \(port) is not between 0 and 65535")
    }
    guard limits.connections > 0, limits.backlog > 0, limits.idleTimeoutSeconds > 0,
      limits.headerBytes >= 4096, limits.bodyBytes > 0
    else {
      throw WebServiceError(.invalidArgument, "every server limit must be positive")
    }
    let state = ServerState(handler: handler)
    let context = Unmanaged.passRetained(state).toOpaque()
    var config = chs_config()
    config.port = UInt16(port)
    config.connection_limit = UInt32(clamping: limits.connections)
    config.backlog = UInt32(clamping: limits.backlog)
    config.idle_timeout_seconds = UInt32(clamping: limits.idleTimeoutSeconds)
    config.header_limit = limits.headerBytes
    config.body_limit = limits.bodyBytes
    config.context = context
    config.on_request = { context, request in
      guard let context, let request else { return }
      Unmanaged<ServerState>.fromOpaque(context).takeUnretainedValue().accept(request)
    }
    config.on_gone = { context, identifier in
      guard let context else { return }
      Unmanaged<ServerState>.fromOpaque(context).takeUnretainedValue().noteGone(identifier)
    }
    var server: OpaquePointer?
    var message = [CChar](repeating: 0, count: 256)
    let started = host.withCString { host in
      config.host = host
      return chs_server_start(&config, &server, &message, message.count)
    }
    guard started == 0, let server else {
      Unmanaged<ServerState>.fromOpaque(context).release()
      let text = String(
        decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw WebServiceError(
        text.contains("address") ? .invalidArgument : .cannotListen, text)
    }
    self.port = Int(chs_server_port(server))
    self.state = state
    state.begin(server: ServerHandle(pointer: server), context: context)
  }

  deinit {
    state.finish()
  }

  /// The requests read and not yet answered.
  package var inFlight: Int { state.inFlight }

  /// The connections open now.
  package var connections: Int { state.connections }

  /// Stops accepting connections, lets the requests in flight finish until `deadline`, then
  /// answers any left with 503 and closes every connection.
  package func stop(within deadline: Duration) async {
    state.quiesce()
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    while state.unfinished > 0, clock.now < end {
      try? await Task.sleep(for: .milliseconds(10))
    }
    state.finish()
  }
}

/// A C server or request pointer passed between threads; the C side synchronizes them.
struct ServerHandle: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// The server's mutable state: the handler tasks by request number, and the C server.
final class ServerState: @unchecked Sendable {
  // Safety of @unchecked Sendable: every `var` is read and written under `lock`.
  private let handler: HTTPServer.Handler
  private let executor = HandlerExecutor(name: "http-handlers")
  private let lock = NSLock()
  private var tasks: [UInt64: Task<Void, Never>] = [:]
  private var server: ServerHandle?
  private var context: UnsafeMutableRawPointer?
  private var sweeper: Thread?
  private var stopping = false

  init(handler: @escaping HTTPServer.Handler) {
    self.handler = handler
  }

  var inFlight: Int { lock.withLock { tasks.count } }

  /// Requests handed to a handler whose answer has not been sent whole yet.
  var unfinished: Int {
    lock.withLock { server.map { Int(chs_server_unfinished($0.pointer)) } ?? 0 }
  }

  var connections: Int {
    lock.withLock { server.map { Int(chs_server_connections($0.pointer)) } ?? 0 }
  }

  func begin(server: ServerHandle, context: UnsafeMutableRawPointer) {
    lock.withLock {
      self.server = server
      self.context = context
    }
    // One thread checks every 100 ms whether the clients of unanswered requests are gone.
    let sweeper = Thread { [weak self] in
      while let self, self.sweep() {
        Thread.sleep(forTimeInterval: 0.1)
      }
    }
    sweeper.name = "http-sweeper"
    sweeper.stackSize = 256 * 1024
    lock.withLock { self.sweeper = sweeper }
    sweeper.start()
  }

  /// Runs one sweep; `false` once the server is stopping.
  private func sweep() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard !stopping, let server else { return false }
    // Under the lock, so that `finish` cannot stop the server during the sweep; the C side
    // reports gone clients through `noteGone`, on this thread.
    _ = chs_server_sweep(server.pointer)
    for identifier in gone { tasks[identifier]?.cancel() }
    gone.removeAll(keepingCapacity: true)
    return true
  }

  /// The requests whose clients the current sweep found gone.
  private var gone: [UInt64] = []

  /// Called on the polling thread for a complete request.
  func accept(_ pointer: OpaquePointer) {
    let request = Self.request(pointer)
    let identifier = chs_request_id(pointer)
    let handle = ServerHandle(pointer: pointer)
    let started = lock.withLock { () -> Bool in
      guard !stopping else { return false }
      tasks[identifier] = Task(executorPreference: executor) { [handler] in
        let response = await handler(request)
        Self.respond(handle, response)
        self.done(identifier)
      }
      return true
    }
    if !started {
      // Read while the server stops: no task (the handler thread may have ended).
      Self.respond(
        handle,
        .json(
          503, Array(#"{"error":{"code":"shutting_down","message":"the server is stopping"}}"#.utf8)
        ))
    }
  }

  private func done(_ identifier: UInt64) {
    let idle = lock.withLock {
      tasks.removeValue(forKey: identifier)
      return stopping && tasks.isEmpty
    }
    if idle { executor.finish() }
  }

  /// Notes a request whose client is gone; called by `chs_server_sweep` during `sweep`, on
  /// the sweeping thread, which holds the lock.
  func noteGone(_ identifier: UInt64) {
    gone.append(identifier)
  }

  func quiesce() {
    lock.withLock {
      if let server, !stopping { chs_server_quiesce(server.pointer) }
    }
  }

  /// Stops the C server once; later calls do nothing.
  func finish() {
    let (server, context, remaining):
      (ServerHandle?, UnsafeMutableRawPointer?, [Task<Void, Never>]) =
        lock.withLock {
          guard !stopping else { return (nil, nil, []) }
          stopping = true
          let taken = (self.server, self.context, Array(tasks.values))
          self.server = nil
          self.context = nil
          return taken
        }
    for task in remaining { task.cancel() }
    if remaining.isEmpty, server != nil { executor.finish() }
    if let server { chs_server_stop(server.pointer) }
    if let context { Unmanaged<ServerState>.fromOpaque(context).release() }
  }

  private static func request(_ pointer: OpaquePointer) -> WebRequest {
    var size = 0
    var multipart: Int32 = 0
    // The body changes owner without a copy: a request's bytes are held once.
    let body =
      chs_request_take_body(pointer, &size, &multipart).map {
        Data(
          bytesNoCopy: $0, count: size, deallocator: .custom { bytes, _ in chs_free_body(bytes) })
      } ?? Data()
    var code: UnsafePointer<CChar>?
    let failed = chs_request_error(pointer, &code) != 0
    return WebRequest(
      method: String(cString: chs_request_method(pointer)),
      path: String(cString: chs_request_path(pointer)),
      contentType: chs_request_header(pointer, "Content-Type").map { String(cString: $0) },
      accept: chs_request_header(pointer, "Accept").map { String(cString: $0) },
      body: body, isMultipart: multipart != 0,
      readError: failed ? code.map { String(cString: $0) } ?? "bad_request" : nil)
  }

  private static func respond(_ handle: ServerHandle, _ response: WebResponse) {
    let headers = response.headers.map { header in
      "\(clean(header.name)): \(clean(header.value))"
    }.joined(separator: "\n")
    let status = UInt32(clamping: max(100, min(response.status, 599)))
    response.body.withUnsafeBufferPointer { body in
      chs_respond(
        handle.pointer, status, clean(response.contentType), headers, body.baseAddress, body.count)
    }
  }

  /// A header name or value without line breaks.
  private static func clean(_ text: String) -> String {
    String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
  }
}
