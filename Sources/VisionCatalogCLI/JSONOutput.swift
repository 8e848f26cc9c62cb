import Foundation

/// Prints one JSON object on standard output, as `--json` promises.
enum JSONOutput {
  /// `--json`: the subcommand prints one JSON object on standard output instead of text.
  static let option = Option.flag("json", help: "print one JSON object instead of a table")

  /// Prints `value` as one line of JSON with sorted keys.
  static func print(_ value: some Encodable) throws(CLIError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      let data = try encoder.encode(value)
      Swift.print(String(decoding: data, as: UTF8.self))
    } catch {
      throw CLIError.failure("cannot encode the result as JSON: \(error)")
    }
  }
}
