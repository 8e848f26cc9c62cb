/// The name and declared shape of a model input or output.
public struct TensorDescription: Sendable, Hashable {
  /// The value's name in the model.
  public var name: String
  /// The declared dimensions, outermost first; `nil` for a dimension fixed only at run time
  /// (such as the batch size), and `nil` overall when the model declares no shape.
  public var shape: [Int?]?

  /// Creates a description.
  ///
  /// - Parameters:
  ///   - name: The value's name.
  ///   - shape: The declared dimensions, `nil` where open.
  public init(name: String, shape: [Int?]?) {
    self.name = name
    self.shape = shape
  }
}
