/// A named, typed value of a graph: an input, an output or an annotated intermediate.
public struct ONNXValueInfo: Sendable, Hashable {
  /// The value's name, as used by node inputs and outputs.
  public var name: String
  /// The declared type, or `nil` when the model declares none.
  public var type: ONNXValueType?

  /// Creates a value description.
  ///
  /// - Parameters:
  ///   - name: The value's name.
  ///   - type: The declared type.
  public init(name: String, type: ONNXValueType?) {
    self.name = name
    self.type = type
  }
}
