import CatalogClient
import Foundation

/// Building the URL of the catalog query that `find` sends, for OData v2 and v4: a category
/// filter with a price bound, a selection, an ordering, paging and a count.
enum CatalogClientBenchmarks {
  static func all() throws -> [Benchmark] {
    guard let root = URL(string: "https://catalog.example.com/sap/opu/odata/ESPM/") else {
      return []
    }
    let query = ODataQuery(entitySet: Product.entitySet)
      .filter(Product.categoryName == "Espresso Machines" && Product.price < Decimal(500))
      .select(Product.productId, Product.name, Product.price, Product.pictureUrl)
      .orderBy(Product.price.descending, Product.name.ascending)
      .top(20)
      .inlineCount()
    return [ODataVersion.v2, .v4].map { version in
      Benchmark(name: "CatalogClient.queryURL.\(version)") {
        blackHole(try query.url(serviceRoot: root, version: version))
      }
    }
  }
}
