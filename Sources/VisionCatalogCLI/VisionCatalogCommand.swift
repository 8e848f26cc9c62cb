import Foundation

/// The entry point: picks the subcommand, prints help, parses its options, and turns failures
/// into error lines and exit codes in ``fail(_:usage:)``, the one place that does.
@main
enum VisionCatalogCommand {
  /// Every subcommand, in the order the overview lists them.
  static let subcommands: [any Subcommand] = [
    BarcodesCommand(),
    CategoriesCommand(),
    ClassifyCommand(),
    DecodeCommand(),
    EvaluateCommand(),
    FindCommand(),
    IndexCommand(),
    InferCommand(),
    PreprocessCommand(),
    ProductsCommand(),
    QuantizeCommand(),
    ServeCommand(),
    SimilarCommand(),
    TrainCommand(),
  ]

  /// The USAGE line of the command without a subcommand.
  static let usage = "USAGE: vision-catalog <subcommand> [options]"

  /// Runs the subcommand the command line names and exits with its status.
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first else {
      fail(.usage("missing subcommand; run 'vision-catalog --help'"), usage: usage)
    }
    if ["--help", "-h", "help"].contains(first) {
      print(overview)
      exit(0)
    }
    guard let command = subcommands.first(where: { $0.name == first }) else {
      fail(.usage("unknown subcommand '\(first)'; run 'vision-catalog --help'"), usage: usage)
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      print(command.help)
      exit(0)
    }
    do {
      try await command.run(CommandLineArguments(rest, accepting: command.options))
    } catch {
      fail(error, usage: command.usage)
    }
  }

  /// The help of the command itself: what it does and its subcommands.
  static var overview: String {
    let width = subcommands.map(\.name.count).max() ?? 0
    let lines = subcommands.map { command in
      "  " + command.name + String(repeating: " ", count: width - command.name.count + 2)
        + command.summary
    }
    return """
      vision-catalog: classify a photo and find the catalog's products for it.

      \(usage)

      SUBCOMMANDS:
      \(lines.joined(separator: "\n"))

      Run 'vision-catalog <subcommand> --help' for a subcommand's options.
      """
  }

  /// Writes `error` as one `error:` line on standard error, followed by `usage` for a usage
  /// error, and exits with the error's code.
  static func fail(_ error: CLIError, usage: String) -> Never {
    StandardError.write("error: \(error.message)\n")
    if case .usage = error {
      StandardError.write("\(usage)\n")
    }
    exit(error.exitCode)
  }
}
