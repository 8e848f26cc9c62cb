public import Foundation

/// A typed literal value in a query: the right-hand side of a comparison, a key, an `in` member.
///
/// A value is always rendered as one literal token (see ``literal(for:)``), so no value can change
/// the structure of the query it appears in.
public enum ODataValue: Sendable, Hashable {
  /// The `null` literal.
  case null
  /// `true` or `false`.
  case boolean(Bool)
  /// An `Edm.Int32`.
  case int32(Int32)
  /// An `Edm.Int64` (`123L` on v2).
  case int64(Int64)
  /// An `Edm.Decimal` (`12.22M` on v2).
  case decimal(Decimal)
  /// An `Edm.Double` (`1.2d` on v2).
  case double(Double)
  /// An `Edm.Single` (`1.1f` on v2).
  case single(Float)
  /// An `Edm.String`; quotes inside are doubled.
  case string(String)
  /// An `Edm.Guid` (`guid'…'` on v2, bare on v4).
  case guid(UUID)
  /// A point in time for a v2 `Edm.DateTime` / v4 `Edm.DateTimeOffset` property, in UTC.
  case dateTime(Date)
  /// A point in time for an `Edm.DateTimeOffset` property on either version, in UTC.
  case dateTimeOffset(Date)
}

/// A Swift type that can appear as a literal in a query.
public protocol ODataLiteralConvertible: Sendable {
  /// The literal value for this Swift value.
  var odataValue: ODataValue { get }
}

extension ODataValue: ODataLiteralConvertible {
  /// The value itself, so untyped (string-named) properties can compare with any literal.
  public var odataValue: ODataValue { self }
}

extension String: ODataLiteralConvertible {
  /// The string as an `Edm.String` literal.
  public var odataValue: ODataValue { .string(self) }
}

extension Int: ODataLiteralConvertible {
  /// The integer as an `Edm.Int64` literal.
  public var odataValue: ODataValue { .int64(Int64(self)) }
}

extension Int32: ODataLiteralConvertible {
  /// The integer as an `Edm.Int32` literal.
  public var odataValue: ODataValue { .int32(self) }
}

extension Int64: ODataLiteralConvertible {
  /// The integer as an `Edm.Int64` literal.
  public var odataValue: ODataValue { .int64(self) }
}

extension Decimal: ODataLiteralConvertible {
  /// The number as an `Edm.Decimal` literal.
  public var odataValue: ODataValue { .decimal(self) }
}

extension Double: ODataLiteralConvertible {
  /// The number as an `Edm.Double` literal.
  public var odataValue: ODataValue { .double(self) }
}

extension Float: ODataLiteralConvertible {
  /// The number as an `Edm.Single` literal.
  public var odataValue: ODataValue { .single(self) }
}

extension Bool: ODataLiteralConvertible {
  /// The Boolean as an `Edm.Boolean` literal.
  public var odataValue: ODataValue { .boolean(self) }
}

extension UUID: ODataLiteralConvertible {
  /// The identifier as an `Edm.Guid` literal.
  public var odataValue: ODataValue { .guid(self) }
}

extension Date: ODataLiteralConvertible {
  /// The date as a ``ODataValue/dateTime(_:)`` literal (v2 `datetime'…'`, v4 `…Z`).
  public var odataValue: ODataValue { .dateTime(self) }
}
