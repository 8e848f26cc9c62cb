/// One picture in a product index: whose it is, where it came from and what it held.
///
/// An index holds one feature print per picture. Pictures are told apart by product and
/// source; ``contentHash`` tells whether a picture at the same source has changed since it was
/// embedded.
public struct IndexedPicture: Sendable, Hashable, Codable {
  /// The product's identifier in the catalog (or the folder or ids file it came from).
  public var productId: String
  /// The product's name, or empty.
  public var name: String
  /// The product's category, or empty.
  public var category: String
  /// Where the picture came from: its URL or file path, or empty for a vector made elsewhere.
  public var source: String
  /// The SHA-256 of the picture's bytes in hexadecimal, or empty when unknown.
  public var contentHash: String

  /// Describes a picture.
  ///
  /// - Parameters:
  ///   - productId: The product's identifier.
  ///   - name: The product's name, or empty.
  ///   - category: The product's category, or empty.
  ///   - source: The picture's URL or path, or empty.
  ///   - contentHash: The SHA-256 of its bytes in hexadecimal, or empty.
  public init(
    productId: String, name: String = "", category: String = "", source: String = "",
    contentHash: String = ""
  ) {
    self.productId = productId
    self.name = name
    self.category = category
    self.source = source
    self.contentHash = contentHash
  }
}
