/// A typed filter term: a property path, or a string function applied to one.
///
/// `Value` is the Swift type of the property, so `Product.price > Decimal(100)` type-checks and
/// `Product.price > "x"` does not. Use `ODataProperty<ODataValue>("AnyName")` for untyped access.
public struct ODataProperty<Value: ODataLiteralConvertible>: Sendable, Hashable {
  /// The term this property stands for in a filter.
  package let operand: ODataOperand

  /// Creates a property from its path.
  ///
  /// - Parameter path: For example `"CategoryName"` or `"Category/MainCategoryName"`.
  public init(_ path: ODataPath) {
    operand = .property(path)
  }

  init(operand: ODataOperand) {
    self.operand = operand
  }

  /// The property path, or `nil` when this term is a function of a property.
  public var path: ODataPath? {
    if case .property(let path) = operand {
      return path
    }
    return nil
  }

  /// The property in ascending order, for ``ODataQuery/orderBy(_:)``.
  public var ascending: ODataOrder { ODataOrder(operand, descending: false) }

  /// The property in descending order, for ``ODataQuery/orderBy(_:)``.
  public var descending: ODataOrder { ODataOrder(operand, descending: true) }

  /// The term equals a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value; always written as one literal.
  /// - Returns: `lhs eq rhs`.
  public static func == (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .equal, .literal(rhs.odataValue)))
  }

  /// The term differs from a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value.
  /// - Returns: `lhs ne rhs`.
  public static func != (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .notEqual, .literal(rhs.odataValue)))
  }

  /// The term is less than a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value.
  /// - Returns: `lhs lt rhs`.
  public static func < (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .lessThan, .literal(rhs.odataValue)))
  }

  /// The term is less than or equal to a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value.
  /// - Returns: `lhs le rhs`.
  public static func <= (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .lessThanOrEqual, .literal(rhs.odataValue)))
  }

  /// The term is greater than a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value.
  /// - Returns: `lhs gt rhs`.
  public static func > (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .greaterThan, .literal(rhs.odataValue)))
  }

  /// The term is greater than or equal to a value.
  ///
  /// - Parameters:
  ///   - lhs: The property.
  ///   - rhs: The value.
  /// - Returns: `lhs ge rhs`.
  public static func >= (lhs: ODataProperty, rhs: Value) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .greaterThanOrEqual, .literal(rhs.odataValue)))
  }

  /// Two terms are equal.
  ///
  /// - Parameters:
  ///   - lhs: The first term.
  ///   - rhs: The second term.
  /// - Returns: `lhs eq rhs`.
  public static func == (lhs: ODataProperty, rhs: ODataProperty) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .equal, rhs.operand))
  }

  /// Two terms differ.
  ///
  /// - Parameters:
  ///   - lhs: The first term.
  ///   - rhs: The second term.
  /// - Returns: `lhs ne rhs`.
  public static func != (lhs: ODataProperty, rhs: ODataProperty) -> ODataExpression {
    ODataExpression(.compare(lhs.operand, .notEqual, rhs.operand))
  }

  /// The term equals one of the values (`in` on v4.01).
  ///
  /// - Parameter values: The candidates; each written as one literal.
  /// - Returns: `self in (values…)`.
  public func isIn(_ values: [Value]) -> ODataExpression {
    ODataExpression(.isIn(operand, values.map(\.odataValue)))
  }
}

extension ODataProperty where Value == String {
  /// The text contains a part (`contains` on v4, `substringof` on v2).
  ///
  /// - Parameter part: The text to look for.
  /// - Returns: The condition.
  public func contains(_ part: String) -> ODataExpression {
    ODataExpression(.contains(operand, .literal(.string(part))))
  }

  /// The text starts with a prefix (`startswith`).
  ///
  /// - Parameter prefix: The expected start.
  /// - Returns: The condition.
  public func hasPrefix(_ prefix: String) -> ODataExpression {
    ODataExpression(.startsWith(operand, .literal(.string(prefix))))
  }

  /// The text ends with a suffix (`endswith`).
  ///
  /// - Parameter suffix: The expected end.
  /// - Returns: The condition.
  public func hasSuffix(_ suffix: String) -> ODataExpression {
    ODataExpression(.endsWith(operand, .literal(.string(suffix))))
  }

  /// The text in lower case (`tolower`).
  ///
  /// - Returns: A term to compare or search in.
  public func lowercased() -> ODataProperty<String> {
    ODataProperty(operand: .toLower(operand))
  }

  /// The text in upper case (`toupper`).
  ///
  /// - Returns: A term to compare or search in.
  public func uppercased() -> ODataProperty<String> {
    ODataProperty(operand: .toUpper(operand))
  }
}
