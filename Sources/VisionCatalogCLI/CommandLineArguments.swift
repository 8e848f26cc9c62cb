/// The arguments of one subcommand: positionals, `--name value` options and `--flag` switches.
///
/// Unknown options and missing values are usage errors (exit code 2), reported with the
/// subcommand's usage line so the user sees at once what is expected.
struct CommandLineArguments {
  private(set) var positionals: [String] = []
  private var options: [String: String] = [:]
  private var flags: Set<String> = []

  /// Parses `arguments` given the option names that take a value and the flag names that do not.
  init(_ arguments: [String], options valued: Set<String>, flags switches: Set<String>)
    throws(CLIError)
  {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      guard argument.hasPrefix("--"), argument.count > 2 else {
        positionals.append(argument)
        continue
      }
      var name = String(argument.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if switches.contains(name), inlineValue == nil {
        flags.insert(name)
      } else if valued.contains(name) {
        if let inlineValue {
          options[name] = inlineValue
        } else if index < arguments.count {
          options[name] = arguments[index]
          index += 1
        } else {
          throw CLIError.usage("--\(name) needs a value")
        }
      } else {
        throw CLIError.usage("unknown option --\(name)")
      }
    }
  }

  /// Whether the switch `--name` was given.
  func has(_ name: String) -> Bool { flags.contains(name) }

  /// The value of `--name`, if given.
  func value(_ name: String) -> String? { options[name] }

  /// The value of `--name` as a positive integer within `range`, if given.
  func integer(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
    guard let text = options[name] else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw CLIError.usage(
        "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// The value of `--name`, which must be one of `choices`, if given.
  func choice(_ name: String, of choices: [String]) throws(CLIError) -> String? {
    guard let text = options[name] else { return nil }
    guard choices.contains(text) else {
      throw CLIError.usage("--\(name) must be one of \(choices.joined(separator: ", "))")
    }
    return text
  }

  /// The value of `--name`, which the subcommand cannot do without.
  func required(_ name: String) throws(CLIError) -> String {
    guard let text = options[name] else { throw CLIError.usage("missing --\(name)") }
    return text
  }

  /// The only positional argument, which the subcommand cannot do without.
  func singlePositional(named name: String) throws(CLIError) -> String {
    guard positionals.count == 1, let first = positionals.first else {
      throw CLIError.usage(positionals.isEmpty ? "missing \(name)" : "expected one \(name)")
    }
    return first
  }
}
