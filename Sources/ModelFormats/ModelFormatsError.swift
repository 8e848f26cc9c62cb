/// The one error type of ModelFormats: damaged or unsupported model files, and graphs read from a
/// file that the engine refuses.
///
/// Every failure carries a ``code`` to switch on and a ``message`` that names the file part, node
/// or operator involved. When the engine refused what a file describes (a node it cannot plan, a
/// tensor it cannot hold), the engine's error is kept as ``underlying``.
public struct ModelFormatsError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred; compare with the static members such as ``Code/malformedFile``.
  ///
  /// A struct rather than an enum so that later versions can add kinds without breaking a
  /// caller's `switch`; `description` is the kind's name, such as `malformedFile`.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case malformedFile, unsupported, limitExceeded, io, missingValue, invalidGraph
      case invalidArgument
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `malformedFile`.
    public var description: String { kind.rawValue }

    /// A model, checkpoint or array file is damaged or truncated.
    public static let malformedFile = Code(.malformedFile)
    /// A valid file uses an operator, attribute, data type or layout this package does not
    /// support.
    public static let unsupported = Code(.unsupported)
    /// A file or tensor exceeds a limit (file size, dimension, element count).
    public static let limitExceeded = Code(.limitExceeded)
    /// Reading or writing a file failed.
    public static let io = Code(.io)
    /// A named parameter, input or output is missing.
    public static let missingValue = Code(.missingValue)
    /// The engine refused the graph a file describes while lowering or planning it; the
    /// engine's error is the ``ModelFormatsError/underlying`` error.
    public static let invalidGraph = Code(.invalidGraph)
    /// An argument is out of range, such as a set of layers to keep in float that leaves
    /// nothing to quantize.
    public static let invalidArgument = Code(.invalidArgument)
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation naming the file part, node or operator involved.
  public let message: String
  /// The engine's error that caused this one, if any.
  public let underlying: (any Error & Sendable)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure occurred.
  ///   - message: A human-readable explanation.
  ///   - underlying: The engine's error that caused this one, if any.
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
