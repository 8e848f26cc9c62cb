import CPostgres
import Foundation

/// One connection to PostgreSQL, used by one statement at a time on a serial queue of its own
/// (so a slow server holds one thread, never the caller's), opened again after it is lost.
final class PostgresConnection: @unchecked Sendable {
  // Safety of @unchecked Sendable: `connection` is only touched on `queue`.
  private let conninfo: String
  private let queue: DispatchQueue
  private var connection: OpaquePointer?
  /// The longest a statement may take, in milliseconds.
  let timeoutMilliseconds: Int32

  /// A connection to `conninfo`, opened on first use.
  init(conninfo: String, timeoutMilliseconds: Int32 = 30_000) {
    self.conninfo = conninfo
    self.timeoutMilliseconds = timeoutMilliseconds
    queue = DispatchQueue(label: "VisualSearch.PostgresConnection")
  }

  deinit {
    cpg_close(connection)
  }

  /// Runs statements one after the other on the connection and returns the last one's rows
  /// (each field as text, `nil` for SQL NULL).
  ///
  /// A statement is `(sql, parameters)`; the first failure ends the run.
  @discardableResult
  func run(_ statements: [(String, [String?])]) async throws(SearchError) -> [[String?]] {
    let result: Result<[[String?]], SearchError> = await withCheckedContinuation { continuation in
      queue.async {
        continuation.resume(
          returning: Result { () throws(SearchError) in try self.runNow(statements) })
      }
    }
    return try result.get()
  }

  /// Runs one statement.
  @discardableResult
  func run(_ sql: String, _ parameters: [String?] = []) async throws(SearchError) -> [[String?]] {
    try await run([(sql, parameters)])
  }

  private func runNow(_ statements: [(String, [String?])]) throws(SearchError) -> [[String?]] {
    let opened = try open()
    var rows: [[String?]] = []
    for (sql, parameters) in statements {
      rows = try execute(sql, parameters, on: opened)
    }
    return rows
  }

  private func open() throws(SearchError) -> OpaquePointer {
    if let connection { return connection }
    var opened: OpaquePointer?
    var message: UnsafeMutablePointer<CChar>?
    let status = cpg_connect(conninfo, 10, &opened, &message)
    defer { cpg_free_message(message) }
    guard status == CPG_OK, let opened else {
      throw SearchError(
        .storeUnavailable,
        "cannot connect to PostgreSQL: \(message.map { String(cString: $0) } ?? "unknown error")")
    }
    connection = opened
    return opened
  }

  private func execute(_ sql: String, _ parameters: [String?], on opened: OpaquePointer)
    throws(SearchError) -> [[String?]]
  {
    var result: OpaquePointer?
    var message: UnsafeMutablePointer<CChar>?
    var state: (CChar, CChar, CChar, CChar, CChar, CChar) = (0, 0, 0, 0, 0, 0)
    let status = Self.withCStrings(parameters) { values in
      withUnsafeMutableBytes(of: &state) { stateBytes in
        cpg_run(
          opened, sql, Int32(parameters.count), values, timeoutMilliseconds, &result, &message,
          stateBytes.baseAddress?.assumingMemoryBound(to: CChar.self))
      }
    }
    defer {
      cpg_free_message(message)
      cpg_clear(result)
    }
    guard status == CPG_OK, let result else {
      let text = message.map { String(cString: $0) } ?? "unknown error"
      if status != CPG_REFUSED {
        cpg_close(connection)
        connection = nil
      }
      throw SearchError(.storeUnavailable, "PostgreSQL: \(text)")
    }
    return Self.rows(of: result)
  }

  private static func rows(of result: OpaquePointer) -> [[String?]] {
    let columns = cpg_columns(result)
    return (0..<cpg_rows(result)).map { row in
      (0..<columns).map { column in
        cpg_value(result, row, column).map { String(cString: $0) }
      }
    }
  }

  /// Calls `body` with the parameters as C strings (NULL for nil), valid during the call: one
  /// buffer holds them all, each followed by a zero byte.
  private static func withCStrings<Value>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Value
  ) -> Value {
    var buffer: [CChar] = []
    var offsets: [Int?] = []
    for string in strings {
      guard let string else {
        offsets.append(nil)
        continue
      }
      offsets.append(buffer.count)
      buffer.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
      buffer.append(0)
    }
    return buffer.withUnsafeBufferPointer { bytes in
      let pointers = offsets.map { offset in offset.flatMap { bytes.baseAddress?.advanced(by: $0) }
      }
      return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
  }
}
