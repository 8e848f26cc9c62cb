/// The one error type of VisualSearch.
///
/// A search that finds nothing close is not an error: it returns fewer matches, or none.
public struct SearchError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure occurred; new kinds may be added.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case invalidIndex, invalidArgument, storage, storeUnavailable, limitExceeded
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The kind's name, such as `invalidIndex`.
    public var description: String { kind.rawValue }

    /// The index is not an index, or is damaged or truncated (its checksums do not match).
    public static let invalidIndex = Code(.invalidIndex)
    /// An argument is out of range, such as a vector of another length than the index's.
    public static let invalidArgument = Code(.invalidArgument)
    /// The index could not be read or written (a missing file, a full disk, no permission).
    public static let storage = Code(.storage)
    /// The database behind the index cannot be reached, or failed a query.
    public static let storeUnavailable = Code(.storeUnavailable)
    /// The index or a request exceeds a limit.
    public static let limitExceeded = Code(.limitExceeded)
  }

  /// What kind of failure occurred.
  public let code: Code
  /// A human-readable explanation.
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
  public var description: String { "\(code): \(message)" }
}
