/// The value of one operation parameter: one binding, or several for variadic parameters
/// (`concat`'s `values`).
package struct MILArgument: Sendable, Equatable {
  /// What one binding refers to.
  package enum Binding: Sendable, Equatable {
    /// A value defined earlier: a function input or another operation's output.
    case name(String)
    /// A constant known when the program is compiled.
    case value(MILValue)
  }

  /// The bindings, in order.
  package var bindings: [Binding]

  /// Creates an argument.
  package init(_ bindings: [Binding]) {
    self.bindings = bindings
  }
}
