public import Foundation

/// A helper script run off the cooperative threads: its exit status and its output.
public struct ScriptRun: Sendable {
  /// The exit status.
  public let status: Int32
  /// Standard output.
  public let output: Data
  /// Standard error, as text.
  public let errors: String

  /// Runs `executable` with `arguments` and waits for it to exit, reading both pipes as it runs
  /// (so a chatty script cannot fill a pipe and stall).
  ///
  /// - Parameters:
  ///   - executable: The program.
  ///   - arguments: Its arguments.
  ///   - environment: The whole environment of the program; nil inherits the test process's.
  ///   - folder: The working folder; nil keeps the test process's.
  /// - Returns: The exit status and what the program printed.
  /// - Throws: The error of `Process.run()` when the program cannot start.
  public static func run(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    in folder: URL? = nil
  ) async throws -> ScriptRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let folder { process.currentDirectoryURL = folder }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let collected = Collected()
    output.fileHandleForReading.readabilityHandler = { collected.append(output: $0.availableData) }
    errors.fileHandleForReading.readabilityHandler = { collected.append(errors: $0.availableData) }
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil
    collected.append(output: output.fileHandleForReading.readDataToEndOfFile())
    collected.append(errors: errors.fileHandleForReading.readDataToEndOfFile())
    let (out, err) = collected.values
    return ScriptRun(status: status, output: out, errors: String(decoding: err, as: UTF8.self))
  }
}

/// The bytes read so far from both pipes.
private final class Collected: @unchecked Sendable {
  // Safety of @unchecked Sendable: both buffers are touched under `lock`.
  private let lock = NSLock()
  private var output = Data()
  private var errors = Data()

  func append(output data: Data) { lock.withLock { output.append(data) } }
  func append(errors data: Data) { lock.withLock { errors.append(data) } }
  var values: (Data, Data) { lock.withLock { (output, errors) } }
}
