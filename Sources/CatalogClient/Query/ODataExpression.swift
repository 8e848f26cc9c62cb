/// A comparison operator of `$filter`.
package enum ODataComparison: String, Sendable, Hashable, CaseIterable {
  /// Equal.
  case equal = "eq"
  /// Not equal.
  case notEqual = "ne"
  /// Less than.
  case lessThan = "lt"
  /// Less than or equal.
  case lessThanOrEqual = "le"
  /// Greater than.
  case greaterThan = "gt"
  /// Greater than or equal.
  case greaterThanOrEqual = "ge"
}

/// A value-producing term of a filter: a property, a literal, or a string function of a term.
package indirect enum ODataOperand: Sendable, Hashable {
  /// A property path of the entity.
  case property(ODataPath)
  /// A literal value.
  case literal(ODataValue)
  /// `tolower(term)`.
  case toLower(ODataOperand)
  /// `toupper(term)`.
  case toUpper(ODataOperand)
}

/// A Boolean `$filter` expression, built with the operators and functions of ``ODataProperty``
/// (`Product.price < Decimal(50)`, `Product.name.contains("Mouse")`), combined with `&&`, `||`
/// and prefix `!`, or ``constant(_:)``.
///
/// Rendering parenthesizes every nested `and`/`or`/`not`, so the tree you build is the tree the
/// server parses.
public struct ODataExpression: Sendable, Hashable {
  /// The tree of an expression, which the renderers and the offline evaluator switch over.
  package indirect enum Node: Sendable, Hashable {
    /// `left op right`.
    case compare(ODataOperand, ODataComparison, ODataOperand)
    /// `left and right`.
    case and(ODataExpression, ODataExpression)
    /// `left or right`.
    case or(ODataExpression, ODataExpression)
    /// `not (operand)`.
    case not(ODataExpression)
    /// `contains(text, part)` on v4, `substringof(part, text)` on v2.
    case contains(ODataOperand, ODataOperand)
    /// `startswith(text, prefix)`.
    case startsWith(ODataOperand, ODataOperand)
    /// `endswith(text, suffix)`.
    case endsWith(ODataOperand, ODataOperand)
    /// `term in (a, b, …)` on v4.01; an equivalent `or` chain on v2.
    case isIn(ODataOperand, [ODataValue])
    /// `true` or `false`.
    case constant(Bool)
  }

  /// The expression's tree.
  package let node: Node

  /// Creates an expression from its tree.
  ///
  /// - Parameter node: The tree.
  package init(_ node: Node) {
    self.node = node
  }

  /// A condition that always holds (`true`) or never holds (`false`).
  ///
  /// - Parameter value: The condition's value for every entity.
  /// - Returns: `true` or `false`.
  public static func constant(_ value: Bool) -> ODataExpression {
    ODataExpression(.constant(value))
  }

  /// Both expressions hold.
  ///
  /// - Parameters:
  ///   - lhs: The first condition.
  ///   - rhs: The second condition.
  /// - Returns: `lhs and rhs`.
  public static func && (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression {
    ODataExpression(.and(lhs, rhs))
  }

  /// At least one expression holds.
  ///
  /// - Parameters:
  ///   - lhs: The first condition.
  ///   - rhs: The second condition.
  /// - Returns: `lhs or rhs`.
  public static func || (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression {
    ODataExpression(.or(lhs, rhs))
  }

  /// The expression does not hold.
  ///
  /// - Parameter operand: The condition to negate.
  /// - Returns: `not (operand)`.
  public static prefix func ! (operand: ODataExpression) -> ODataExpression {
    ODataExpression(.not(operand))
  }
}
