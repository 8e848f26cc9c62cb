/// The one error type of the facade: which stage of the main job failed, and why.
///
/// The failing layer's own typed error (`ImageDecodingError`, `ClassificationError`,
/// `CatalogError`) is kept as ``underlying`` so callers can still switch on it.
public struct VisionCatalogError: Error, Sendable, CustomStringConvertible {
  /// The stage of the main job that failed; compare with the static members such as
  /// ``Stage/image``.
  ///
  /// A struct rather than an enum so that later versions can add stages without breaking a
  /// caller's `switch`; `description` is the stage's name, such as `image`.
  public struct Stage: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
      case image, classification, noCategory, catalog, configuration, search
    }

    private let kind: Kind

    private init(_ kind: Kind) {
      self.kind = kind
    }

    /// The stage's name, such as `image`.
    public var description: String { kind.rawValue }

    /// Reading or decoding the photo.
    public static let image = Stage(.image)
    /// Loading or running the classifier.
    public static let classification = Stage(.classification)
    /// None of the top labels maps to a catalog category that has products.
    public static let noCategory = Stage(.noCategory)
    /// Querying the catalog.
    public static let catalog = Stage(.catalog)
    /// A bundled resource or a setting is wrong.
    public static let configuration = Stage(.configuration)
    /// Opening, searching or writing a product index.
    public static let search = Stage(.search)
  }

  /// The stage that failed.
  public let stage: Stage
  /// A one-line explanation for a person.
  public let message: String
  /// The failing layer's error, if any.
  public let underlying: (any Error)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - stage: The stage that failed.
  ///   - message: A one-line explanation.
  ///   - underlying: The failing layer's error.
  public init(_ stage: Stage, _ message: String, underlying: (any Error)? = nil) {
    self.stage = stage
    self.message = message
    self.underlying = underlying
  }

  /// The message, which already names the failing input.
  public var description: String { message }
}
