/// A failure the CLI reports on one line of standard error, with its exit code.
enum CLIError: Error {
  /// The command line itself is wrong (exit code 2).
  case usage(String)
  /// The input or a request failed (exit code 1).
  case failure(String)

  /// The process exit code for this failure, as Docs/Design.md section 6 fixes it.
  var exitCode: Int32 {
    switch self {
    case .usage: 2
    case .failure: 1
    }
  }
}
