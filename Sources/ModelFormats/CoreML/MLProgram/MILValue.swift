/// A constant of a MIL program: stored in the program itself or in a weight file beside it.
package struct MILValue: Sendable, Equatable {
  /// Where the value's data is.
  package enum Storage: Sendable, Equatable {
    /// In the program.
    case immediate(MILImmediateValue)
    /// In a MIL blob file: its name as the program gives it (`@model_path/weights/weight.bin`)
    /// and the offset of the blob's metadata record in it.
    case blobFile(fileName: String, offset: UInt64)
    /// Neither (a value that only has a type).
    case none
  }

  /// The value's type; `nil` when the file leaves it out.
  package var type: MILValueType?
  /// The data.
  package var storage: Storage

  /// Creates a value.
  package init(type: MILValueType?, storage: Storage) {
    self.type = type
    self.storage = storage
  }
}
