import Foundation
import VisionCatalog

/// The credentials `find` and `products` send to `--service`, read without putting a secret on
/// the command line, where every user of the machine could see it in the process list.
///
/// `--user NAME` takes its password from `VISION_CATALOG_PASSWORD` or from the first line of
/// `--password-file FILE`; giving both is a usage error, so it is never a guess which secret was
/// sent. Without `--user`, a non-empty `VISION_CATALOG_TOKEN` is sent as a bearer token. An empty
/// variable counts as unset.
struct ServiceCredentials {
  /// The environment variable the password of `--user` is read from.
  static let passwordVariable = "VISION_CATALOG_PASSWORD"
  /// The environment variable a bearer token is read from when there is no `--user`.
  static let tokenVariable = "VISION_CATALOG_TOKEN"

  /// `--user NAME`: the user for HTTP Basic authentication.
  static let user = Option.text(
    "user", "NAME",
    help: "the user for HTTP Basic authentication with --service; the password comes from "
      + "$VISION_CATALOG_PASSWORD or --password-file, never from the command line. Without "
      + "--user, a set $VISION_CATALOG_TOKEN is sent as a bearer token")
  /// `--password-file F`: where the password is, instead of the environment.
  static let passwordFile = Option.text(
    "password-file", "F",
    help: "read the password from the first line of F (not together with "
      + "$VISION_CATALOG_PASSWORD)")
  /// `--password`, refused with a hint, as other users can read the command line.
  static let password = Option.refused(
    "password",
    because: "as other users can read the command line; set \(passwordVariable) or use "
      + "\(passwordFile) FILE")
  /// `--token`, refused with a hint, as other users can read the command line.
  static let token = Option.refused(
    "token", because: "as other users can read the command line; set \(tokenVariable)")

  /// The whole group; the refused options are accepted by the parser only to be refused.
  static let all = [user, passwordFile, password, token]

  /// The `Authorization` to send.
  let authorization: Authorization

  /// How the CLI names these credentials in an error: the user, never the secret.
  var subject: String {
    switch authorization {
    case .basic(let user, _): "user '\(user)'"
    case .bearer: "the token in \(Self.tokenVariable)"
    }
  }

  /// Reads the credentials the arguments and environment give, or `nil` for none.
  ///
  /// - Parameters:
  ///   - arguments: The parsed command line.
  ///   - hasService: Whether `--service` was given; credentials need it.
  ///   - environment: The process environment.
  /// - Returns: The credentials, or `nil` when there are none to send.
  /// - Throws: `CLIError.usage` for contradictory or missing options, `CLIError.failure` for a
  ///   password file that cannot be read or a value that cannot go into a header.
  static func read(
    from arguments: CommandLineArguments, hasService: Bool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(CLIError) -> ServiceCredentials? {
    let passwordFile = arguments.value(Self.passwordFile)
    guard let user = arguments.value(Self.user) else {
      if passwordFile != nil {
        throw Self.passwordFile.usageError("needs \(Self.user)")
      }
      guard hasService, let token = nonEmpty(environment[tokenVariable]) else {
        return nil
      }
      // A line break in the token would end the header and start another one.
      guard !token.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
      else {
        throw CLIError.failure("\(tokenVariable) contains a control character")
      }
      return ServiceCredentials(authorization: .bearer(token))
    }
    guard hasService else {
      throw Self.user.usageError("needs \(CatalogOptions.service)")
    }
    guard !user.isEmpty, !user.contains(":") else {
      throw Self.user.usageError("must be a non-empty name without ':'")
    }
    let password: String
    switch (passwordFile, nonEmpty(environment[passwordVariable])) {
    case (.some, .some):
      throw CLIError.usage(
        "give the password one way: \(Self.passwordFile) or \(passwordVariable), not both")
    case (.some(let path), .none):
      password = try firstLine(ofFile: path)
    case (.none, .some(let value)):
      password = value
    case (.none, .none):
      throw Self.user.usageError(
        "\(user) needs a password: set \(passwordVariable) or use \(Self.passwordFile) FILE")
    }
    return ServiceCredentials(authorization: .basic(user: user, password: password))
  }

  /// `value`, or `nil` when it is unset or empty.
  private static func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
  }

  /// The first line of a password file without its line break; the error names only the file.
  private static func firstLine(ofFile path: String) throws(CLIError) -> String {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw CLIError.failure("cannot read the password file \(path)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw CLIError.failure("the password file \(path) is not UTF-8 text")
    }
    // `\r\n` is one Character in Swift and counts as a newline, so a file written on Windows
    // loses its whole line ending, not just the `\n`.
    let line =
      text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .first.map(String.init) ?? ""
    guard !line.isEmpty else {
      throw CLIError.failure("the password file \(path) has an empty first line")
    }
    return line
  }
}
