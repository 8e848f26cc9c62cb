/// A value stored in the program.
package indirect enum MILImmediateValue: Sendable, Equatable {
  /// A tensor's elements.
  case tensor(MILTensorValue)
  /// A tuple's values.
  case tuple([MILValue])
  /// A list's values.
  case list([MILValue])
  /// A dictionary's pairs, in file order.
  case dictionary([MILDictionaryEntry])
}
