/// One dimension of a declared ONNX tensor shape.
package enum ONNXDimension: Sendable, Hashable {
  /// A fixed size.
  case value(Int)
  /// A named size fixed at run time, such as `N` or `batch_size`.
  case symbolic(String)
  /// A size the model leaves open without naming it.
  case unknown
}
