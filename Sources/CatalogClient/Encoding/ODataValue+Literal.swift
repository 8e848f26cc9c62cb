import Foundation

extension ODataValue {
  /// The URL literal of this value for a protocol version, before percent-encoding.
  ///
  /// Strings double their single quotes (`'O''Neil'`), so the literal always ends where the value
  /// ends. v2 marks numeric types with suffixes (`L`, `M`, `d`, `f`) and prefixes dates and GUIDs.
  ///
  /// - Parameter version: The protocol version to write for.
  /// - Returns: The literal text, for example `12.22M` (v2) or `12.22` (v4).
  public func literal(for version: ODataVersion) -> String {
    switch self {
    case .null:
      return "null"
    case .boolean(let value):
      return value ? "true" : "false"
    case .int32(let value):
      return String(value)
    case .int64(let value):
      return version == .v2 ? "\(value)L" : String(value)
    case .decimal(let value):
      let text = value.description
      return version == .v2 ? text + "M" : text
    case .double(let value):
      return Self.floatingLiteral(value.description, isFinite: value.isFinite, value < 0)
        + (version == .v2 ? "d" : "")
    case .single(let value):
      return Self.floatingLiteral(value.description, isFinite: value.isFinite, value < 0)
        + (version == .v2 ? "f" : "")
    case .string(let value):
      // Per Unicode scalar: Character-level replacement misses a quote that a following
      // combining mark joins into one grapheme cluster, and that quote would end the literal.
      var quoted = String.UnicodeScalarView(["'"])
      for scalar in value.unicodeScalars {
        quoted.append(scalar)
        if scalar == "'" {
          quoted.append(scalar)
        }
      }
      quoted.append("'")
      return String(quoted)
    case .guid(let value):
      let text = value.uuidString.lowercased()
      return version == .v2 ? "guid'\(text)'" : text
    case .dateTime(let value):
      let text = Self.iso8601(value, withZone: version == .v4)
      return version == .v2 ? "datetime'\(text)'" : text
    case .dateTimeOffset(let value):
      let text = Self.iso8601(value, withZone: true)
      return version == .v2 ? "datetimeoffset'\(text)'" : text
    }
  }

  private static func floatingLiteral(_ text: String, isFinite: Bool, _ isNegative: Bool) -> String
  {
    if isFinite {
      return text
    }
    if text == "nan" {
      return "NaN"
    }
    return isNegative ? "-INF" : "INF"
  }

  /// `yyyy-MM-ddTHH:mm:ss[.SSS][Z]` in UTC on the proleptic Gregorian calendar, independent of
  /// the process locale and time zone; the time is rounded to the nearest millisecond.
  static func iso8601(_ date: Date, withZone: Bool) -> String {
    let parts = CivilDate(date)
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(value.magnitude)
      return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count))
        + text
    }
    var text =
      "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
      + "T\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
    if parts.millisecond > 0 {
      text += "." + pad(parts.millisecond, 3)
    }
    return withZone ? text + "Z" : text
  }
}
