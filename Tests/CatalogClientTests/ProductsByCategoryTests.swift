import CatalogClient
import Foundation
import TestSupport
import Testing

struct ProductsByCategoryTests {
  @Test func offlineListing() async throws {
    let provider: any CatalogProvider = try OfflineCatalogProvider.bundled()
    let products = try await provider.products(inCategory: "Mice")
    #expect(
      try provider.describe(CatalogSchema.espm.productsQuery(inCategory: "Mice"))
        == "Products?$filter=CategoryName%20eq%20'Mice'"
        + "&$select=ProductId,Name,CategoryName,Price,CurrencyCode,PictureUrl,ShortDescription"
        + "&$orderby=ProductId")
    #expect(
      products.map(\.productId) == ["HT-1060", "HT-1061", "HT-1062", "HT-1063", "HT-1064"])
    let first = try #require(products.first)
    #expect(first.name == "Cordless Mouse")
    #expect(first.price == MatrixCase.decimal("9"))
    #expect(first.currencyCode == "EUR")
    #expect(first.pictureUrl == "/imgs/HT-1060.jpg")
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    .timeLimit(.minutes(3)), arguments: ["Notebooks", "Espresso Machines", "Joe's", "Ümlaut"])
  func serversAndOfflineListTheSameProducts(_ category: String) async throws {
    let offline = try await OfflineCatalogProvider.bundled().products(inCategory: category)
    for version in ODataVersion.allCases {
      let server = try ODataTestServers.shared(version == .v4 ? .v4 : .v2)
      let provider = HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: version)
      let products = try await provider.products(inCategory: category)
      // A service's picture URLs come resolved against its root; a local catalog's as written.
      #expect(
        products
          == offline.map { product in
            var resolved = product
            resolved.pictureUrl = product.pictureUrl.map {
              "http://127.0.0.1:\(server.port)" + $0
            }
            return resolved
          })
      let query = try provider.describe(CatalogSchema.espm.productsQuery(inCategory: category))
      #expect(query.hasPrefix(server.serviceRoot.absoluteString + "Products?$filter="))
    }
  }
}
