import VisualSearch

extension JSONShapes {
  /// One match of a visual search: `{"productId", "score", "name", "category", "picture"}`.
  package struct Match: Encodable, Sendable {
    package let productId: String
    package let score: Float
    package let name: String
    package let category: String
    package let picture: String

    package init(_ match: ProductMatch) {
      productId = match.productId
      score = match.score
      name = match.name
      category = match.category
      picture = match.picture
    }
  }

  /// `similar --json`: `{"matches": [...]}`, best first.
  package struct Matches: Encodable, Sendable {
    package let matches: [Match]

    package init(_ matches: [ProductMatch]) {
      self.matches = matches.map(Match.init)
    }
  }

  /// `index --json`: `{"index", "products", "pictures", "added", "removed", "unchanged"}`.
  package struct IndexReport: Encodable, Sendable {
    package let index: String
    package let products: Int
    package let pictures: Int
    package let added: Int
    package let removed: Int
    package let unchanged: Int

    package init(_ report: ProductIndexer.Report) {
      index = report.index
      products = report.products
      pictures = report.pictures
      added = report.added
      removed = report.removed
      unchanged = report.unchanged
    }
  }
}
