/// The type of a MIL value.
package indirect enum MILValueType: Sendable, Equatable {
  /// A tensor of one element type and a (possibly partly unknown) shape.
  case tensor(MILTensorType)
  /// A list of values of one type, of a fixed or unknown length.
  case list(element: MILValueType, length: MILDimension?)
  /// A tuple of values of the given types.
  case tuple([MILValueType])
  /// A dictionary.
  case dictionary(key: MILValueType, value: MILValueType)
  /// A state (iOS 18's stateful models) wrapping the type it holds.
  case state(MILValueType)
}
