/// One key and value of a dictionary constant.
package struct MILDictionaryEntry: Sendable, Equatable {
  /// The key.
  package var key: MILValue?
  /// The value.
  package var value: MILValue?
}
