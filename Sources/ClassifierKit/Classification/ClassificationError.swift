/// The one error type of ClassifierKit.
///
/// Failures of the layers below keep their own typed error as ``underlying`` so that callers can
/// still switch on an `ImageDecodingError` or a `NeuralCoreError`.
public struct ClassificationError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred.
  public enum Code: Sendable, Hashable {
    /// The image could not be decoded or prepared.
    case invalidImage
    /// The model file, its weights or its description could not be loaded.
    case modelUnavailable
    /// The model's description (sidecar, labels) does not fit the network.
    case invalidModelDescription
    /// Running the network failed.
    case inferenceFailed
    /// An argument is out of range.
    case invalidArgument
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation; for a missing model it names the command that fetches it.
  public let message: String
  /// The error of the layer below that caused this one, if any.
  public let underlying: (any Error & Sendable)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure occurred.
  ///   - message: A human-readable explanation.
  ///   - underlying: The lower layer's error, if any.
  public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
    self.code = code
    self.message = message
    self.underlying = underlying
  }

  /// The message prefixed with the failure kind, followed by the underlying error.
  public var description: String {
    guard let underlying else { return "\(code): \(message)" }
    return "\(code): \(message) (\(underlying))"
  }
}
