/// The arguments of one subcommand: positionals, and the values and flags of its ``Option``s.
///
/// Only the options the subcommand declares are accepted. Unknown options, missing values and
/// values that do not fit a declared number range or choice are usage errors (exit code 2),
/// found while parsing, so a lookup only ever sees a checked value.
struct CommandLineArguments {
  /// The arguments that are not options, in order.
  private(set) var positionals: [String] = []
  /// The options the subcommand takes, by name.
  private let accepted: [String: Option]
  /// The values given, by option name; the last one wins when an option is repeated.
  private var values: [String: String] = [:]
  /// The names of the flags given.
  private var flags: Set<String> = []

  /// Parses `arguments` for a subcommand that takes `options`.
  init(_ arguments: [String], accepting options: [Option]) throws(CLIError) {
    accepted = Dictionary(options.map { ($0.name, $0) }) { first, _ in first }
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      guard argument.hasPrefix("--"), argument.count > 2 else {
        positionals.append(argument)
        continue
      }
      try read(argument.dropFirst(2), from: &remaining)
    }
  }

  /// Reads one `--name`, `--name=value` or `--name value`, taking the value from `remaining`
  /// where it is the next argument.
  private mutating func read(_ text: Substring, from remaining: inout ArraySlice<String>)
    throws(CLIError)
  {
    let equals = text.firstIndex(of: "=")
    let name = String(text[..<(equals ?? text.endIndex)])
    guard let option = accepted[name] else { throw CLIError.usage("unknown option --\(name)") }
    if let refusal = option.refusal { throw CLIError.usage(refusal) }
    if option.isFlag {
      guard equals == nil else { throw option.usageError("takes no value") }
      flags.insert(name)
      return
    }
    guard let value = equals.map({ String(text[text.index(after: $0)...]) }) ?? remaining.popFirst()
    else {
      throw option.usageError("needs a value")
    }
    try Self.check(value, for: option)
    values[name] = value
  }

  /// Checks a value against its option's number range or choices.
  private static func check(_ value: String, for option: Option) throws(CLIError) {
    switch option.value {
    case .integer(_, let range):
      guard let number = Int(value), range.contains(number) else {
        throw option.usageError(
          "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
      }
    case .choice(let choices):
      guard choices.contains(value) else {
        throw option.usageError("must be one of \(choices.joined(separator: ", "))")
      }
    case .none, .text:
      break
    }
  }

  /// `option` as the subcommand declared it; asking for an undeclared one is a programming
  /// error, since the parser would never have accepted it.
  private func declared(_ option: Option) -> Option {
    guard let known = accepted[option.name] else {
      preconditionFailure("\(option) is not an option of this subcommand")
    }
    return known
  }

  /// Whether the flag was given.
  func has(_ option: Option) -> Bool {
    flags.contains(declared(option).name)
  }

  /// The option's value, if given.
  func value(_ option: Option) -> String? {
    values[declared(option).name]
  }

  /// The value of a whole-number option, already checked against its range, if given.
  func integer(_ option: Option) -> Int? {
    value(option).flatMap { Int($0) }
  }

  /// The value of an option the subcommand cannot do without.
  func required(_ option: Option) throws(CLIError) -> String {
    guard let text = value(option) else { throw CLIError.usage("missing \(option)") }
    return text
  }

  /// The only positional argument, which the subcommand cannot do without.
  func singlePositional(named name: String) throws(CLIError) -> String {
    guard positionals.count == 1, let first = positionals.first else {
      throw CLIError.usage(positionals.isEmpty ? "missing \(name)" : "expected one \(name)")
    }
    return first
  }

  /// Fails for a subcommand that takes options only.
  func rejectPositionals() throws(CLIError) {
    if let first = positionals.first {
      throw CLIError.usage("unexpected argument '\(first)'")
    }
  }
}
