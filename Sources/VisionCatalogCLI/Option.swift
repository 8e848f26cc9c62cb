/// One `--name` option, declared once: the parser, the validation messages, the USAGE line and
/// the OPTIONS section of `--help` are all made from it.
///
/// Options a single subcommand takes are `static let`s of that subcommand; options several
/// subcommands share are declared in their group (``CatalogOptions``, ``ModelOptions``,
/// ``ServiceCredentials``), and each subcommand lists the groups and options it takes.
struct Option: Sendable, CustomStringConvertible {
  /// What follows the option's name on the command line.
  enum Value: Sendable {
    /// Nothing: the option is a flag.
    case none
    /// Any text.
    case text(placeholder: String)
    /// A whole number in a range, checked while parsing.
    case integer(placeholder: String, range: ClosedRange<Int>)
    /// One of a few words, checked while parsing.
    case choice([String])
  }

  /// The name without its leading `--`, such as `service`.
  let name: String
  /// What follows the name.
  let value: Value
  /// One paragraph for the OPTIONS section; the help wraps it.
  let help: String
  /// Whether the subcommand cannot run without it; shown without brackets in the USAGE line.
  let isRequired: Bool
  /// The whole error message of an option recognized only to be refused, such as `--password`.
  ///
  /// Such an option is not shown in the help.
  let refusal: String?

  /// `--name`, as messages and the help spell it.
  var description: String { "--\(name)" }

  /// The value's placeholder, such as `URL` or `2|4`; `nil` for a flag.
  var placeholder: String? {
    switch value {
    case .none: nil
    case .text(let placeholder), .integer(let placeholder, _): placeholder
    case .choice(let choices): choices.joined(separator: "|")
    }
  }

  /// Whether the help leaves the option out, as it does a refused one.
  var isHidden: Bool { refusal != nil }

  /// Whether the option is a flag that takes no value.
  var isFlag: Bool { placeholder == nil }

  /// `--name VALUE` or `--name`, as the help lists it.
  var label: String { placeholder.map { "\(self) \($0)" } ?? description }

  /// A usage error about this option: `--name` followed by `problem`.
  func usageError(_ problem: String) -> CLIError {
    .usage("\(self) \(problem)")
  }
}

extension Option {
  /// A flag, such as `--json`.
  static func flag(_ name: String, help: String) -> Option {
    Option(name: name, value: .none, help: help, isRequired: false, refusal: nil)
  }

  /// An option that takes any text, such as `--service URL`.
  static func text(
    _ name: String, _ placeholder: String, isRequired: Bool = false, help: String
  ) -> Option {
    Option(
      name: name, value: .text(placeholder: placeholder), help: help, isRequired: isRequired,
      refusal: nil)
  }

  /// An option that takes a whole number in `range`, such as `--top K`.
  static func integer(
    _ name: String, _ placeholder: String, in range: ClosedRange<Int>, help: String
  ) -> Option {
    Option(
      name: name, value: .integer(placeholder: placeholder, range: range), help: help,
      isRequired: false, refusal: nil)
  }

  /// An option that takes one of `choices`, such as `--crop center|fit|fill`.
  static func choice(_ name: String, _ choices: [String], help: String) -> Option {
    Option(name: name, value: .choice(choices), help: help, isRequired: false, refusal: nil)
  }

  /// An option that is recognized only to fail with "`--name` is not accepted, `reason`",
  /// such as `--password`, whose value other users could read in the process list.
  static func refused(_ name: String, because reason: String) -> Option {
    Option(
      name: name, value: .text(placeholder: "VALUE"), help: "", isRequired: false,
      refusal: "--\(name) is not accepted, \(reason)")
  }
}
