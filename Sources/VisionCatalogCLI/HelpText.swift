/// The help text of a subcommand, made from its declarations: a USAGE line that lists every
/// option, the discussion, and an OPTIONS section with each option's help.
enum HelpText {
  /// The widest line the help writes.
  static let width = 96
  /// The column each option's help starts in.
  static let helpColumn = 24

  /// The USAGE line: the synopsis, then each shown option, `[bracketed]` unless required.
  static func usage(of command: some Subcommand) -> String {
    let options = command.options.filter { !$0.isHidden }.map { option in
      option.isRequired ? option.label : "[\(option.label)]"
    }
    let items = (command.synopsis.isEmpty ? [] : [command.synopsis]) + options
    let prefix = "USAGE: vision-catalog \(command.name) "
    return wrap(items, first: prefix, indent: prefix.count)
  }

  /// The whole help: usage, discussion and options.
  static func help(of command: some Subcommand) -> String {
    """
    \(usage(of: command))

    \(command.discussion)

    OPTIONS:
    \(command.options.filter { !$0.isHidden }.map(entry).joined(separator: "\n"))
    """
  }

  /// One option's lines in the OPTIONS section.
  private static func entry(_ option: Option) -> String {
    let label = "  \(option.label)"
    let words = option.help.split(separator: " ").map(String.init)
    let indent = String(repeating: " ", count: helpColumn)
    guard label.count + 2 <= helpColumn else {
      return label + "\n" + wrap(words, first: indent, indent: helpColumn)
    }
    let padding = String(repeating: " ", count: helpColumn - label.count)
    return wrap(words, first: label + padding, indent: helpColumn)
  }

  /// Writes `words` after `first`, wrapped to lines of at most ``width`` columns.
  ///
  /// Each line after the first is indented by `indent` spaces; a word too long for any line
  /// stands alone on one.
  private static func wrap(_ words: [String], first: String, indent: Int) -> String {
    var lines: [String] = []
    var line = first
    var lineIsEmpty = true
    for word in words {
      if !lineIsEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = String(repeating: " ", count: indent)
        lineIsEmpty = true
      }
      line += (lineIsEmpty ? "" : " ") + word
      lineIsEmpty = false
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }
}
