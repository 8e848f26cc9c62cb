import CatalogClient
import Foundation

/// A type-directed reader of OData URL literals (Docs/Design.md section 5; OData v2 URI
/// conventions and the v4 ABNF), written independently of the encoder: the expected value only
/// says which type to read, as a server knows a property's type.
enum LiteralGrammar {
  static func parse(_ text: String, like value: ODataValue, version: ODataVersion) -> ODataValue? {
    let v2 = version == .v2
    switch value {
    case .null:
      return text == "null" ? .null : nil
    case .boolean:
      return text == "true" ? .boolean(true) : text == "false" ? .boolean(false) : nil
    case .int32:
      return integerText(text).flatMap { Int32($0) }.map { .int32($0) }
    case .int64:
      return suffixed(text, v2 ? "L" : "").flatMap(integerText).flatMap { Int64($0) }
        .map { .int64($0) }
    case .decimal:
      guard let body = suffixed(text, v2 ? "M" : ""), decimalText(body, allowsExponent: !v2)
      else {
        return nil
      }
      return Decimal(string: body, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
    case .double:
      return suffixed(text, v2 ? "d" : "").flatMap(floatingText).flatMap { Double($0) }
        .map { .double($0) }
    case .single:
      return suffixed(text, v2 ? "f" : "").flatMap(floatingText).flatMap { Float($0) }
        .map { .single($0) }
    case .string:
      return quoted(text).map { .string($0) }
    case .guid:
      let body = v2 ? quoted(text, prefix: "guid") : text
      return body.flatMap { UUID(uuidString: $0) }.map { .guid($0) }
    case .dateTime:
      let body = v2 ? quoted(text, prefix: "datetime") : text
      return body.flatMap { CivilTime.parse($0, requiresZone: !v2) }.map { .dateTime($0) }
    case .dateTimeOffset:
      let body = v2 ? quoted(text, prefix: "datetimeoffset") : text
      return body.flatMap { CivilTime.parse($0, requiresZone: true) }.map { .dateTimeOffset($0) }
    }
  }

  /// Equality that treats NaN as equal to itself and compares dates at millisecond precision.
  static func same(_ lhs: ODataValue, _ rhs: ODataValue) -> Bool {
    switch (lhs, rhs) {
    case (.double(let a), .double(let b)):
      return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    case (.single(let a), .single(let b)):
      return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    case (.dateTime(let a), .dateTime(let b)), (.dateTimeOffset(let a), .dateTimeOffset(let b)):
      return CivilTime.milliseconds(a) == CivilTime.milliseconds(b)
    default:
      return lhs == rhs
    }
  }

  private static func suffixed(_ text: String, _ suffix: String) -> String? {
    guard text.hasSuffix(suffix) else {
      return nil
    }
    return String(text.dropLast(suffix.count))
  }

  private static func integerText(_ text: String) -> String? {
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit) ? text : nil
  }

  /// `[-]digits[.digits]`, with `e[-+]digits` allowed on v4.
  private static func decimalText(_ text: String, allowsExponent: Bool) -> Bool {
    var rest = Substring(text)
    if rest.hasPrefix("-") {
      rest = rest.dropFirst()
    }
    var mantissa = rest
    var exponent: Substring?
    if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      guard allowsExponent else {
        return false
      }
      mantissa = rest[..<e]
      var digits = rest[rest.index(after: e)...]
      if digits.hasPrefix("-") || digits.hasPrefix("+") {
        digits = digits.dropFirst()
      }
      exponent = digits
    }
    let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count),
      parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) })
    else {
      return false
    }
    return exponent.map { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) } ?? true
  }

  private static func floatingText(_ text: String) -> String? {
    switch text {
    case "NaN": return "nan"
    case "INF": return "inf"
    case "-INF": return "-inf"
    default: return decimalText(text, allowsExponent: true) ? text : nil
    }
  }

  /// The content of `prefix'…'` with doubled quotes undone; a lone quote inside means the
  /// literal would have ended early, so it is rejected.
  private static func quoted(_ text: String, prefix: String = "") -> String? {
    // Unicode scalars, not Characters: a combining mark after the opening quote joins it in
    // one grapheme cluster, yet the quote byte is still there for a server.
    let scalars = Array(text.unicodeScalars)
    let opening = Array((prefix + "'").unicodeScalars)
    guard scalars.count >= opening.count + 1, Array(scalars.prefix(opening.count)) == opening,
      scalars.last == "'"
    else {
      return nil
    }
    let inner = Array(scalars.dropFirst(opening.count).dropLast())
    var result = String.UnicodeScalarView()
    var index = 0
    while index < inner.count {
      if inner[index] == "'" {
        guard index + 1 < inner.count, inner[index + 1] == "'" else {
          return nil
        }
        index += 1
      }
      result.append(inner[index])
      index += 1
    }
    return String(result)
  }
}

extension Character {
  var isASCIIDigit: Bool { isASCII && isNumber }
}
