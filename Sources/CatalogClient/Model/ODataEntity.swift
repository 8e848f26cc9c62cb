public import Foundation

/// An entity as the service sent it, with protocol bookkeeping removed: the dynamic entity.
///
/// v2's `__metadata` and deferred navigation links and v4's `@odata.*` annotations are dropped;
/// an expanded v2 collection (`{"results":[…]}`) becomes an array. Use the typed accessors, which
/// accept both the v2 forms (decimals and Int64 as strings, `/Date(ms)/`) and the v4 forms, or
/// ``decode(_:)`` into a `Decodable` type such as ``Product``.
public struct ODataEntity: Sendable, Hashable {
  /// The properties by name.
  public var properties: [String: ODataJSON]

  /// Creates an entity from its properties.
  ///
  /// - Parameter properties: The properties by name.
  public init(properties: [String: ODataJSON]) {
    self.properties = properties
  }

  /// The property with a given name.
  ///
  /// - Parameter name: The property name.
  public subscript(name: String) -> ODataJSON? {
    properties[name]
  }

  /// A string property.
  ///
  /// - Parameter name: The property name.
  /// - Returns: The value, or `nil` when absent, null or not a string.
  public func string(_ name: String) -> String? {
    properties[name]?.stringValue
  }

  /// A decimal property, from a JSON number (v4) or a string (v2).
  ///
  /// - Parameter name: The property name.
  /// - Returns: The exact value, or `nil` when absent, null or not a number.
  public func decimal(_ name: String) -> Decimal? {
    switch properties[name] {
    case .number(let text), .string(let text):
      return ODataScalars.decimal(text)
    default:
      return nil
    }
  }

  /// An integer property, from a JSON number (v4) or a string (v2 `Edm.Int64`).
  ///
  /// - Parameter name: The property name.
  /// - Returns: The value, or `nil` when absent, null or not an integer.
  public func int64(_ name: String) -> Int64? {
    switch properties[name] {
    case .number(let text), .string(let text):
      return Int64(text)
    default:
      return nil
    }
  }

  /// A date property, from `/Date(ms)/` (v2) or ISO 8601 (v4).
  ///
  /// - Parameter name: The property name.
  /// - Returns: The point in time, or `nil` when absent, null or not a date.
  public func date(_ name: String) -> Date? {
    properties[name]?.stringValue.flatMap(ODataScalars.date)
  }

  /// Decodes the entity into a `Decodable` type.
  ///
  /// - Parameter type: The type to decode, for example ``Product``.
  /// - Returns: The decoded value.
  /// - Throws: ``CatalogError/Code/decodingFailed`` when the properties do not fit the type.
  public func decode<T: Decodable>(_ type: T.Type) throws(CatalogError) -> T {
    do {
      return try JSONDecoder().decode(
        T.self, from: Data(ODataJSON.object(properties).jsonText.utf8))
    } catch {
      throw CatalogError(.decodingFailed, "cannot decode \(T.self): \(error)")
    }
  }

  /// Removes protocol bookkeeping from an entity object of either version.
  static func normalized(_ members: [String: ODataJSON]) -> ODataEntity {
    var properties: [String: ODataJSON] = [:]
    for (name, value) in members where !name.hasPrefix("__") && !name.contains("@") {
      if let clean = normalizedValue(value) {
        properties[name] = clean
      }
    }
    return ODataEntity(properties: properties)
  }

  private static func normalizedValue(_ value: ODataJSON) -> ODataJSON? {
    switch value {
    case .object(let members):
      if members["__deferred"] != nil {
        return nil
      }
      if let results = members["results"]?.arrayValue {
        return .array(results.compactMap(normalizedValue))
      }
      return .object(normalized(members).properties)
    case .array(let values):
      return .array(values.compactMap(normalizedValue))
    default:
      return value
    }
  }
}

/// Parsing of scalar forms shared by both protocol versions and the offline catalog.
enum ODataScalars {
  static func decimal(_ text: String) -> Decimal? {
    let scanned = text.trimmingCharacters(in: .whitespaces)
    guard !scanned.isEmpty,
      scanned.unicodeScalars.allSatisfy({
        ($0 >= "0" && $0 <= "9") || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e"
          || $0 == "E"
      })
    else {
      return nil
    }
    return Decimal(string: scanned, locale: Locale(identifier: "en_US_POSIX"))
  }

  /// `/Date(1705307400000)/`, `/Date(1705307400000+0000)/`, or ISO 8601 with optional fraction.
  static func date(_ text: String) -> Date? {
    if text.hasPrefix("/Date(") && text.hasSuffix(")/") {
      let inner = text.dropFirst(6).dropLast(2)
      let digits = inner.prefix { $0 == "-" || ($0 >= "0" && $0 <= "9") }
      guard let milliseconds = Int64(digits) else {
        return nil
      }
      var date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
      // An offset is a sign and at most four digits of minutes; anything longer is damage (and
      // an unbounded number would overflow when turned into seconds).
      let offset = inner.dropFirst(digits.count)
      if !offset.isEmpty {
        guard let sign = offset.first, sign == "+" || sign == "-", (2...5).contains(offset.count),
          offset.dropFirst().allSatisfy({ $0 >= "0" && $0 <= "9" }),
          let minutes = Int(offset.dropFirst())
        else {
          return nil
        }
        date += Double(minutes * 60) * (sign == "-" ? 1 : -1)
      }
      return date
    }
    return iso8601(text)
  }

  private static func iso8601(_ text: String) -> Date? {
    let scalars = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= scalars.count else {
        return nil
      }
      return Int(String(decoding: scalars[range], as: UTF8.self))
    }
    guard scalars.count >= 19, scalars[4] == UInt8(ascii: "-"), scalars[10] == UInt8(ascii: "T"),
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
    else {
      return nil
    }
    var index = 19
    var fraction = 0.0
    if index < scalars.count, scalars[index] == UInt8(ascii: ".") {
      let start = index
      index += 1
      while index < scalars.count, scalars[index] >= 0x30, scalars[index] <= 0x39 { index += 1 }
      fraction = Double(String(decoding: scalars[start..<index], as: UTF8.self)) ?? 0
    }
    var offsetSeconds = 0
    let zone = String(decoding: scalars[index...], as: UTF8.self)
    if zone.isEmpty || zone == "Z" {
      offsetSeconds = 0
    } else if zone.count == 6, let sign = zone.first, sign == "+" || sign == "-",
      let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2))
    {
      offsetSeconds = (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
    } else {
      return nil
    }
    guard
      let date = CivilDate.date(
        year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    else {
      return nil
    }
    return date + fraction - Double(offsetSeconds)
  }
}
