import Foundation

/// A throwaway PostgreSQL with pgvector on 127.0.0.1 (Scripts/pgvector/server.py), one per test
/// that needs one, stopped and deleted when the test ends.
public final class PostgresTestServer: Sendable {
  /// The server's `postgresql://` URL (user `postgres`, no password, database `postgres`).
  public let url: String
  private let process: Process
  private let input: FileHandle

  /// The venv's Python interpreter.
  static let python = ODataTestServer.packageRoot.appendingPathComponent(
    ".cache/pg-venv/bin/python")

  /// Why the server cannot run, or `nil` when it can.
  public static let unavailableReason: String? = {
    if FileManager.default.isExecutableFile(atPath: python.path) { return nil }
    let reason =
      "PostgreSQL tests skipped: no venv at \(python.path); run Scripts/pgvector/setup-venv.sh"
    print(reason)
    return reason
  }()

  /// Whether the PostgreSQL tests can run.
  public static var isAvailable: Bool { unavailableReason == nil }

  private init(url: String, process: Process, input: FileHandle) {
    self.url = url
    self.process = process
    self.input = input
  }

  deinit {
    try? input.close()
  }

  /// Starts a new cluster and waits until it accepts connections.
  ///
  /// - Returns: The running server.
  /// - Throws: `ODataTestServer.ServerError` when the venv is missing or the server does not
  ///   start within a minute.
  public static func start() throws -> PostgresTestServer {
    if let unavailableReason { throw ODataTestServer.ServerError(message: unavailableReason) }
    let process = Process()
    process.executableURL = python
    process.arguments = [
      ODataTestServer.packageRoot.appendingPathComponent("Scripts/pgvector/server.py").path
    ]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    guard let line = ODataTestServer.readLine(from: output.fileHandleForReading, timeout: 60),
      line.hasPrefix("postgresql://")
    else {
      process.terminate()
      throw ODataTestServer.ServerError(message: "PostgreSQL did not start")
    }
    return PostgresTestServer(url: line, process: process, input: input.fileHandleForWriting)
  }

  /// Kills the server and its backends at once (a database gone mid-query).
  public func kill() { send("kill") }
  /// Stops every server process (SIGSTOP): connections stay open, nothing answers.
  public func freeze() { send("freeze") }
  /// Lets frozen processes run again.
  public func thaw() { send("thaw") }

  /// Stops the server, deletes its cluster and waits for both.
  public func stop() {
    try? input.close()
    process.waitUntilExit()
  }

  private func send(_ command: String) {
    try? input.write(contentsOf: Data((command + "\n").utf8))
    // The script acts on a line as soon as it reads it; give it that moment.
    Thread.sleep(forTimeInterval: 0.3)
  }
}
