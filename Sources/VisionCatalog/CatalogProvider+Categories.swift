public import CatalogClient

extension CatalogProvider {
  /// The products of one category, refusing a category the catalog does not have.
  ///
  /// An empty listing is ambiguous (a known category with no products, or a misspelt name), so
  /// when a category yields no products this asks the catalog's `ProductCategories` whether it
  /// exists.
  ///
  /// - Parameter category: The category name; always sent as a literal value.
  /// - Returns: The listing with the exact query used.
  /// - Throws: `CatalogError` with code `notFound` for an unknown category, or the request's
  ///   own error.
  public func products(inKnownCategory category: String) async throws(CatalogError)
    -> ProductListing
  {
    let listing = try await products(inCategory: category)
    guard listing.products.isEmpty else { return listing }
    let known = ODataQuery(entitySet: ProductCategory.entitySet)
      .filter(ProductCategory.categoryName == category)
    guard try await count(known) > 0 else {
      throw CatalogError(.notFound, "the catalog has no category named '\(category)'")
    }
    return listing
  }
}
