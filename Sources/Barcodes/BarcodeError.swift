public import ImagePipeline

/// The one error type of Barcodes.
///
/// A photo without a barcode is not an error: the reader returns no barcodes.
public struct BarcodeError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred; new kinds may be added.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case image, limitExceeded, invalidArgument, readerFailure
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `image`.
    public var description: String { kind.rawValue }

    /// The photo could not be read or decoded; ``BarcodeError/underlying`` holds the decoder's
    /// error.
    public static let image = Code(.image)
    /// The photo or its barcodes exceed a limit, or memory ran out.
    public static let limitExceeded = Code(.limitExceeded)
    /// An option is out of range.
    public static let invalidArgument = Code(.invalidArgument)
    /// The barcode library failed unexpectedly.
    public static let readerFailure = Code(.readerFailure)
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation.
  public let message: String
  /// The image decoder's error, for ``Code/image``.
  public let underlying: ImageDecodingError?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure occurred.
  ///   - message: A human-readable explanation.
  ///   - underlying: The image decoder's error, if that is the cause.
  public init(_ code: Code, _ message: String, underlying: ImageDecodingError? = nil) {
    self.code = code
    self.message = message
    self.underlying = underlying
  }

  /// The message prefixed with the failure kind.
  public var description: String { "\(code): \(message)" }
}
