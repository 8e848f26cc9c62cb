/// The one error type of NeuralCore: malformed model files, unsupported operators, shape mismatches.
///
/// Every failure carries a ``code`` to switch on and a ``message`` that names the file part, node or
/// operator involved.
public struct NeuralCoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure occurred.
  public enum Code: Sendable, Hashable {
    /// A model, checkpoint or array file is damaged or truncated.
    case malformedFile
    /// A valid file uses an operator, attribute, data type or layout this engine does not support.
    case unsupported
    /// A file or tensor exceeds a limit (file size, dimension, element count).
    case limitExceeded
    /// Tensor shapes do not fit the operation or the model's declared input.
    case shapeMismatch
    /// A named parameter, input or output is missing.
    case missingValue
    /// Reading or writing a file failed.
    case io
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation naming the node, operator or field involved.
  public let message: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure occurred.
  ///   - message: A human-readable explanation.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The message prefixed with the failure kind.
  public var description: String {
    "\(code): \(message)"
  }
}
