/// One key of `$orderby`: a term and its direction.
public struct ODataOrder: Sendable, Hashable {
  /// The term to sort by.
  package var operand: ODataOperand
  /// Whether the order is descending.
  public var isDescending: Bool

  /// Creates a sort key.
  ///
  /// - Parameters:
  ///   - operand: The term to sort by.
  ///   - descending: Whether to sort from high to low.
  package init(_ operand: ODataOperand, descending: Bool = false) {
    self.operand = operand
    self.isDescending = descending
  }

  /// Creates a sort key for a named property.
  ///
  /// - Parameters:
  ///   - path: The property path.
  ///   - descending: Whether to sort from high to low.
  public init(_ path: ODataPath, descending: Bool = false) {
    self.init(.property(path), descending: descending)
  }
}
