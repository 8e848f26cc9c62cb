import VisionCatalog

/// A failure the CLI reports on one line of standard error, with its exit code.
enum CLIError: Error {
  /// The command line itself is wrong (exit code 2).
  case usage(String)
  /// The input or a request failed (exit code 1).
  case failure(String)

  /// The line's text, without the `error: ` the CLI puts before it.
  var message: String {
    switch self {
    case .usage(let text), .failure(let text): text
    }
  }

  /// The process exit code for this failure, as Docs/Design.md section 6 fixes it.
  var exitCode: Int32 {
    switch self {
    case .usage: 2
    case .failure: 1
    }
  }

  /// `error` as a one-line failure: a `CLIError` as it is, a library error by its message.
  static func failure(from error: any Error) -> CLIError {
    switch error {
    case let error as CLIError: error
    case let error as ModelFormatsError: .failure(error.message)
    case let error as NeuralCoreError: .failure(error.message)
    default: .failure("\(error)")
    }
  }
}
