/// One `vision-catalog` subcommand, described by declarations its help and parser are made
/// from.
protocol Subcommand: Sendable {
  /// The word that selects it, such as `decode`.
  var name: String { get }
  /// A one-line summary for the overview.
  var summary: String { get }
  /// The positional arguments as the USAGE line shows them, such as `IMAGE`; empty for none.
  var synopsis: String { get }
  /// The paragraphs of `--help` between the USAGE line and the OPTIONS.
  var discussion: String { get }
  /// Every option it takes, in the order the help lists them.
  var options: [Option] { get }
  /// Runs the subcommand with its parsed arguments.
  func run(_ arguments: CommandLineArguments) async throws(CLIError)
}

extension Subcommand {
  /// The USAGE line: the synopsis and every option, wrapped to the help's width.
  var usage: String { HelpText.usage(of: self) }

  /// The full help text printed by `--help`.
  var help: String { HelpText.help(of: self) }
}
