import Foundation
import TestSupport
import Testing
import WebService

/// The server on a real socket, with URLSession as the client.
@Suite struct HTTPServerTests {
  /// A handler that answers with what it read: method, path, body length and the read error.
  static func echo(_ request: WebRequest) async -> WebResponse {
    let text =
      "\(request.method) \(request.path) \(request.body.count) \(request.isMultipart) "
      + (request.readError ?? "-")
    return WebResponse(status: 200, contentType: "text/plain", body: Array(text.utf8))
  }

  static func fetch(
    _ port: Int, _ path: String, method: String = "GET", body: Data? = nil,
    contentType: String? = nil
  ) async throws -> (status: Int, body: String, headers: [String: String]) {
    let answer = try await LocalHTTP.request(
      port, path, method: method, body: body, contentType: contentType)
    return (answer.status, answer.text, answer.headers)
  }

  @Test func answersGetAndPostWithTheirBodies() async throws {
    let server = try HTTPServer(host: "127.0.0.1", port: 0, handler: Self.echo)
    let get = try await Self.fetch(server.port, "/v1/categories?x=1")
    #expect(get.status == 200)
    #expect(get.body == "GET /v1/categories 0 false -")
    let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
    let post = try await Self.fetch(server.port, "/v1/classify", method: "POST", body: bytes)
    #expect(post.body == "POST /v1/classify 300000 false -")
    await server.stop(within: .seconds(1))
  }

  @Test func multipartGivesTheImageField() async throws {
    let server = try HTTPServer(host: "127.0.0.1", port: 0, handler: Self.echo)
    let boundary = "XyZ123boundary"
    let image = [UInt8](repeating: 0xAB, count: 70_000)
    var form = Data(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
    form += Data(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        .utf8)
    form += Data(image)
    form += Data("\r\n--\(boundary)--\r\n".utf8)
    let type = "multipart/form-data; boundary=\(boundary)"
    let whole = try await Self.fetch(
      server.port, "/up", method: "POST", body: form, contentType: type)
    #expect(whole.body == "POST /up 70000 true -")
    let noImage = Data(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--\(boundary)--\r\n"
        .utf8)
    let missing = try await Self.fetch(
      server.port, "/up", method: "POST", body: noImage, contentType: type)
    #expect(missing.body == "POST /up 0 true missing_image_field")
    await server.stop(within: .seconds(1))
  }

  @Test func aBodyOverTheLimitIs413AndTheServerGoesOn() async throws {
    var limits = HTTPServerLimits()
    limits.bodyBytes = 100_000
    let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, handler: Self.echo)
    let large = Data(repeating: 7, count: 400_000)
    let refused = try await Self.fetch(server.port, "/v1/classify", method: "POST", body: large)
    #expect(refused.status == 413)
    #expect(refused.body.contains("\"code\":\"body_too_large\""))
    let after = try await Self.fetch(server.port, "/healthz")
    #expect(after.status == 200)
    await server.stop(within: .seconds(1))
  }

  @Test func manyConcurrentClientsAreAllAnswered() async throws {
    var limits = HTTPServerLimits()
    limits.connections = 8
    let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
      try? await Task.sleep(for: .milliseconds(5))
      return await Self.echo(request)
    }
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<200 {
        group.addTask {
          try await Self.fetch(server.port, "/n/\(index)", method: "POST", body: Data(count: index))
            .status
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.count == 200)
    #expect(statuses.allSatisfy { $0 == 200 })
    await server.stop(within: .seconds(1))
  }

  @Test func stopFinishesTheRequestsInFlight() async throws {
    let started = CancelFlag()
    let released = CancelFlag()
    let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
      started.set()
      while !released.isSet { try? await Task.sleep(for: .milliseconds(5)) }
      return await Self.echo(request)
    }
    async let slow = Self.fetch(server.port, "/slow")
    var waited = 0
    while !started.isSet, waited < 6_000 {
      try await Task.sleep(for: .milliseconds(10))
      waited += 1
    }
    #expect(server.inFlight == 1)
    // The stop begins while the request is in flight, and waits for its answer.
    async let stopping: Void = server.stop(within: .seconds(60))
    try await Task.sleep(for: .milliseconds(100))
    released.set()
    await stopping
    let answered = try await slow
    #expect(answered.status == 200)
    #expect(server.inFlight == 0)
  }

  @Test func aClientThatGoesAwayCancelsItsHandler() async throws {
    let cancelled = CancelFlag()
    let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
      do {
        try await Task.sleep(for: .seconds(20))
      } catch {
        cancelled.set()
      }
      return await Self.echo(request)
    }
    // A client that sends its request, waits 200 ms and closes the connection.
    let script = """
      import socket, sys, time
      s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
      s.sendall(b"GET /long HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
      time.sleep(0.2)
      s.close()
      """
    let client = Process()
    client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    client.arguments = ["python3", "-c", script, String(server.port)]
    try client.run()
    client.waitUntilExit()
    #expect(client.terminationStatus == 0)
    var waited = 0
    while !cancelled.isSet, waited < 1_200 {
      try await Task.sleep(for: .milliseconds(50))
      waited += 1
    }
    #expect(cancelled.isSet)
    await server.stop(within: .seconds(1))
  }

  @Test func aHostThatIsNotAnAddressIsRefused() {
    #expect(throws: WebServiceError.self) {
      _ = try HTTPServer(host: "not an address", port: 0, handler: Self.echo)
    }
  }
}

/// A flag set from a task and read from the test.
final class CancelFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
