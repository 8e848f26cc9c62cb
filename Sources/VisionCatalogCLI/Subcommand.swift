/// One `vision-catalog` subcommand.
protocol Subcommand: Sendable {
  /// The word that selects it, such as `decode`.
  var name: String { get }
  /// A one-line summary for the overview.
  var summary: String { get }
  /// The full help text printed by `--help`.
  var help: String { get }
  /// Runs the subcommand with the arguments after its name.
  func run(_ arguments: [String]) async throws(CLIError)
}
