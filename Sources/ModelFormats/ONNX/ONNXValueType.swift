/// The declared type of a graph input, output or intermediate value.
package enum ONNXValueType: Sendable, Hashable {
  /// A dense tensor with its element type and, when declared, its shape.
  case tensor(elementType: ONNXDataType, shape: [ONNXDimension]?)
  /// A type NeuralCore does not run (sequence, map, optional, sparse tensor), by its proto name.
  case other(String)
}
