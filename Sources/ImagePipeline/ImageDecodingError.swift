/// The one error type of ImagePipeline: decoding, limits and invalid geometry.
///
/// Every failure carries a ``code`` to switch on and a human-readable ``message`` that includes the
/// codec's own words where a codec produced the error.
public struct ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure occurred; compare with the static members such as ``Code/unknownFormat``.
  ///
  /// A struct rather than an enum so that later versions can add kinds without breaking a
  /// caller's `switch`; `description` is the kind's name, such as `unknownFormat`.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case unknownFormat, corrupt, truncated, unsupported, limitExceeded, io, invalidArgument
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `unknownFormat`.
    public var description: String { kind.rawValue }

    /// The bytes are not a format the decoder knows (checked from magic bytes).
    public static let unknownFormat = Code(.unknownFormat)
    /// The data is damaged: bad signature, bad checksum, invalid header or entropy data.
    public static let corrupt = Code(.corrupt)
    /// The data ends before the image does.
    public static let truncated = Code(.truncated)
    /// A valid file using a feature this build cannot decode (for example 12-bit JPEG).
    public static let unsupported = Code(.unsupported)
    /// The image exceeds a caller-settable limit, such as the maximum pixel count.
    public static let limitExceeded = Code(.limitExceeded)
    /// Reading or writing a file failed.
    public static let io = Code(.io)
    /// An argument is out of range, such as an empty crop rectangle or a zero output size.
    public static let invalidArgument = Code(.invalidArgument)
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation, including the codec's message where there is one.
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
