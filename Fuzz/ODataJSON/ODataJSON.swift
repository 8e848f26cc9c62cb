import CatalogClient
import Dispatch
import Foundation

/// Answers every request with the same fuzzed response.
struct FixedTransport: HTTPTransport {
  let response: HTTPResponse

  func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse {
    response
  }
}

/// Decodes one input as a service's JSON answer through the public provider API.
///
/// The first byte picks the protocol version, the status (200 or 400, so error bodies are read
/// too) and the request: a collection followed for up to three pages, a key lookup or a
/// `/$count`. The rest is the body. Every outcome must be a value or a ``CatalogError``;
/// accepted entities are also decoded as ``Product`` and read through the typed accessors.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else {
    return 0
  }
  let body = Data(input.dropFirst())
  let version: ODataVersion = selector & 1 == 0 ? .v2 : .v4
  let status = selector & 2 == 0 ? 200 : 400
  let operation = (selector >> 2) % 3
  let provider = HTTPCatalogProvider(
    serviceRoot: URL(string: "http://127.0.0.1:8080/odata/") ?? URL(fileURLWithPath: "/"),
    version: version,
    transport: FixedTransport(response: HTTPResponse(statusCode: status, body: body)),
    configuration: HTTPCatalogProvider.Configuration(maximumRetries: 0))
  runBlocking {
    let query = ODataQuery(entitySet: "Products")
    switch operation {
    case 0:
      if let result = try? await provider.fetch(query, maximumPages: 3) {
        inspect(result.entities)
        _ = try? result.decode(Product.self)
      }
    case 1:
      if let entity = try? await provider.entity(query.withKey("HT-1000")) {
        inspect([entity])
      }
    default:
      _ = try? await provider.count(query)
    }
  }
  return 0
}

func inspect(_ entities: [ODataEntity]) {
  for entity in entities {
    for name in entity.properties.keys {
      _ = entity.string(name)
      _ = entity.decimal(name)
      _ = entity.int64(name)
      _ = entity.date(name)
    }
    _ = try? entity.decode(Product.self)
  }
}

/// Runs async work to completion from libFuzzer's synchronous callback.
///
/// Returns only once the task has also released its closure: libFuzzer checks for leaks right
/// after the callback, and memory the finishing task still holds (behind Swift's tagged enum
/// pointers, which LeakSanitizer cannot follow) would be reported as leaked.
func runBlocking(_ work: @escaping @Sendable () async -> Void) {
  final class Work: Sendable {
    let run: @Sendable () async -> Void
    init(_ run: @escaping @Sendable () async -> Void) { self.run = run }
  }
  var job = Work(work)
  let done = DispatchSemaphore(value: 0)
  Task { [job] in
    await job.run()
    done.signal()
  }
  done.wait()
  while !isKnownUniquelyReferenced(&job) {
    sched_yield()
  }
}
