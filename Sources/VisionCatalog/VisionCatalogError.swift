/// The one error type of the facade: which stage of the main job failed, and why.
///
/// The failing layer's own typed error (`ImageDecodingError`, `ClassificationError`,
/// `CatalogError`) is kept as ``underlying`` so callers can still switch on it.
public struct VisionCatalogError: Error, Sendable, CustomStringConvertible {
  /// The stage of the main job that failed.
  public enum Stage: Sendable, Hashable {
    /// Reading or decoding the photo.
    case image
    /// Loading or running the classifier.
    case classification
    /// None of the top labels maps to a catalog category that has products.
    case noCategory
    /// Querying the catalog.
    case catalog
    /// A bundled resource or a setting is wrong.
    case configuration
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
