import Foundation

/// The entry point: picks the subcommand, prints help, and turns failures into exit codes.
@main
enum VisionCatalogCommand {
  static let subcommands: [any Subcommand] = [
    CategoriesCommand(),
    ClassifyCommand(),
    DecodeCommand(),
    EvaluateCommand(),
    FindCommand(),
    InferCommand(),
    PreprocessCommand(),
    ProductsCommand(),
    TrainCommand(),
  ]

  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
      print(overview)
      exit(arguments.isEmpty ? 2 : 0)
    }
    guard let command = subcommands.first(where: { $0.name == first }) else {
      fail(.usage("unknown subcommand '\(first)'; run 'vision-catalog --help'"))
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      print(command.help)
      exit(0)
    }
    do {
      try await command.run(rest)
    } catch {
      if case .usage = error {
        fail(error, usage: command.help)
      }
      fail(error)
    }
  }

  static var overview: String {
    let width = subcommands.map(\.name.count).max() ?? 0
    let lines = subcommands.map { command in
      "  " + command.name + String(repeating: " ", count: width - command.name.count + 2)
        + command.summary
    }
    return """
      vision-catalog: classify a photo and find the catalog's products for it.

      USAGE: vision-catalog <subcommand> [options]

      SUBCOMMANDS:
      \(lines.joined(separator: "\n"))

      Run 'vision-catalog <subcommand> --help' for a subcommand's options.
      """
  }

  static func fail(_ error: CLIError, usage: String? = nil) -> Never {
    let message: String
    switch error {
    case .usage(let text): message = text
    case .failure(let text): message = text
    }
    StandardError.write("error: \(message)\n")
    if let usage, let line = usage.split(separator: "\n").first(where: { $0.contains("USAGE") }) {
      StandardError.write("\(line.trimmingCharacters(in: .whitespaces))\n")
    }
    exit(error.exitCode)
  }
}
