import Foundation
import TestSupport

/// What one run of the `vision-catalog` executable produced.
struct CommandLineOutcome {
  let status: Int32
  let output: String
  let error: String
}

/// A command-line test that could not run the executable.
struct CommandLineTestError: Error, CustomStringConvertible {
  let description: String
}

/// Runs the built `vision-catalog` executable the way tools outside the package drive it.
protocol CommandLineRunning {}

/// The built executable, next to the test bundle in the build products folder.
let commandLineExecutable: URL? = {
  var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  for _ in 0..<4 {
    let candidate = folder.appendingPathComponent("vision-catalog")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    folder.deleteLastPathComponent()
  }
  return nil
}()

extension CommandLineRunning {
  /// Runs the executable in the package root and collects its exit status and output.
  ///
  /// The `VISION_CATALOG_*` variables of the test process are not passed on, so only
  /// `environment` decides what the run sees.
  func run(_ arguments: [String], environment: [String: String] = [:]) async throws
    -> CommandLineOutcome
  {
    guard let executable = commandLineExecutable else {
      throw CommandLineTestError(description: "the vision-catalog executable is not built")
    }
    return try await run(program: executable, arguments, environment: environment)
  }

  /// Runs another program, such as a script of the package that drives the executable, in the
  /// package root, with the environment ``run(_:environment:)`` gives the executable.
  func run(program: URL, _ arguments: [String], environment: [String: String] = [:]) async throws
    -> CommandLineOutcome
  {
    var inherited = ProcessInfo.processInfo.environment.filter {
      !$0.key.hasPrefix("VISION_CATALOG_")
    }
    inherited.merge(environment) { _, given in given }
    // Off the cooperative threads: a test waiting for a long run holds none of them.
    let result = try await ScriptRun.run(
      program, arguments, environment: inherited, in: ODataTestServer.packageRoot)
    return CommandLineOutcome(
      status: result.status, output: String(decoding: result.output, as: UTF8.self),
      error: result.errors)
  }

  /// The lines of standard error that start with `error:`.
  func errorLines(_ outcome: CommandLineOutcome) -> [Substring] {
    outcome.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
  }
}
