/// An operator set a model imports: a domain and its version.
public struct ONNXOperatorSetID: Sendable, Hashable {
  /// The domain; empty for the default `ai.onnx` domain.
  public var domain: String
  /// The operator set version, such as 13.
  public var version: Int64

  /// Creates an operator set reference.
  ///
  /// - Parameters:
  ///   - domain: The domain.
  ///   - version: The version.
  public init(domain: String, version: Int64) {
    self.domain = domain
    self.version = version
  }
}
