extension JSONShapes {
  /// One category: `{"name", "count"}`.
  package struct Category: Encodable, Sendable {
    package let name: String
    package let count: Int64
  }

  /// `categories --json`: `{"categories": [...]}`.
  package struct CategoryList: Encodable, Sendable {
    package let categories: [Category]

    package init(_ categories: [ProductCategory]) {
      self.categories = categories.map {
        Category(name: $0.categoryName, count: $0.numberOfProducts ?? 0)
      }
    }
  }
}
