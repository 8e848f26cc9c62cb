/// The one error type of ClassifierKit.
///
/// Failures of the layers below keep their own typed error as ``underlying`` so that callers can
/// still switch on an `ImageDecodingError`, a `ModelFormatsError` or a `NeuralCoreError`.
public struct ClassificationError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred; compare with the static members such as ``Code/invalidImage``.
  ///
  /// A struct rather than an enum so that later versions can add kinds without breaking a
  /// caller's `switch`; `description` is the kind's name, such as `invalidImage`.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case invalidImage, modelUnavailable, invalidModelDescription, inferenceFailed, invalidArgument
      case overloaded, cancelled
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `invalidImage`.
    public var description: String { kind.rawValue }

    /// The image could not be decoded or prepared.
    public static let invalidImage = Code(.invalidImage)
    /// The model file, its weights or its description could not be loaded.
    public static let modelUnavailable = Code(.modelUnavailable)
    /// The model's description (sidecar, labels) does not fit the network.
    public static let invalidModelDescription = Code(.invalidModelDescription)
    /// Running the network failed.
    public static let inferenceFailed = Code(.inferenceFailed)
    /// An argument is out of range.
    public static let invalidArgument = Code(.invalidArgument)
    /// The ``ComputeExecutor``'s queue is full (``ComputeLimits/maximumQueuedCount``); the call
    /// may be tried again later.
    public static let overloaded = Code(.overloaded)
    /// The calling task was cancelled before the work started.
    public static let cancelled = Code(.cancelled)
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
