/// An operator set a model imports: a domain and its version.
package struct ONNXOperatorSetID: Sendable, Hashable {
  /// The domain; empty for the default `ai.onnx` domain.
  package var domain: String
  /// The operator set version, such as 13.
  package var version: Int64

  /// Creates an operator set reference.
  ///
  /// - Parameters:
  ///   - domain: The domain.
  ///   - version: The version.
  package init(domain: String, version: Int64) {
    self.domain = domain
    self.version = version
  }
}
