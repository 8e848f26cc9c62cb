/// A product an index found close to a query: its best picture's score and what the index
/// knows of it.
public struct ProductMatch: Sendable, Hashable {
  /// The product's identifier.
  public let productId: String
  /// The cosine similarity of the query with the product's closest picture (higher is closer,
  /// 1 at most).
  public let score: Float
  /// The product's name, or empty.
  public let name: String
  /// The product's category, or empty.
  public let category: String
  /// The closest picture's URL or path, or empty.
  public let picture: String

  /// Describes a match.
  ///
  /// - Parameters:
  ///   - picture: The closest picture of the product.
  ///   - score: Its cosine similarity with the query.
  public init(_ picture: IndexedPicture, score: Float) {
    productId = picture.productId
    self.score = score
    name = picture.name
    category = picture.category
    self.picture = picture.source
  }
}
