/// The one error type of NeuralCore: invalid graphs, unsupported operators, shape mismatches.
///
/// Every failure carries a ``code`` to switch on and a ``message`` that names the node, operator or
/// argument involved. The engine does not know which file a graph came from: ModelFormats reports
/// damaged files with its own error and keeps this one as the cause.
public struct NeuralCoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure occurred; compare with the static members such as ``Code/invalidGraph``.
  ///
  /// A struct rather than an enum so that later versions can add kinds without breaking a
  /// caller's `switch`; `description` is the kind's name, such as `invalidGraph`.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case invalidGraph, unsupported, limitExceeded, shapeMismatch, missingValue, invalidArgument
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `invalidGraph`.
    public var description: String { kind.rawValue }

    /// A node, attribute or graph is not valid, such as an attribute of the wrong type, a value
    /// produced twice or a cycle.
    public static let invalidGraph = Code(.invalidGraph)
    /// A valid graph uses an operator, attribute, data type or layout this engine does not
    /// support.
    public static let unsupported = Code(.unsupported)
    /// A graph or tensor exceeds a limit (dimension, element count).
    public static let limitExceeded = Code(.limitExceeded)
    /// Tensor shapes do not fit the operation or the model's declared input.
    public static let shapeMismatch = Code(.shapeMismatch)
    /// A named parameter, input or output is missing.
    public static let missingValue = Code(.missingValue)
    /// An argument is out of range, such as a zero kernel size or a channel count that does not
    /// divide by the group count.
    public static let invalidArgument = Code(.invalidArgument)
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
