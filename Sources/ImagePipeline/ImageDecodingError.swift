/// The one error type of ImagePipeline: decoding, limits and invalid geometry.
///
/// Every failure carries a ``code`` to switch on and a human-readable ``message`` that includes the
/// codec's own words where a codec produced the error.
public struct ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure occurred.
  public enum Code: Sendable, Hashable {
    /// The bytes are not a format the decoder knows (checked from magic bytes).
    case unknownFormat
    /// The data is damaged: bad signature, bad checksum, invalid header or entropy data.
    case corrupt
    /// The data ends before the image does.
    case truncated
    /// A valid file using a feature this build cannot decode (for example 12-bit JPEG).
    case unsupported
    /// The image exceeds a caller-settable limit, such as the maximum pixel count.
    case limitExceeded
    /// Reading or writing a file failed.
    case io
    /// An argument is out of range, such as an empty crop rectangle or a zero output size.
    case invalidArgument
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
