import CatalogClient
import Foundation
import TestSupport
import Testing

@Suite(.enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
struct InjectionAndParserTests {
  static let hostile = "Mice' or CategoryName ne '"

  @Test(.timeLimit(.minutes(3)), arguments: [ODataVersion.v4, .v2])
  func injectedCategoryReturnsNoRows(_ version: ODataVersion) async throws {
    let server = try ODataTestServers.shared(version == .v4 ? .v4 : .v2)
    let provider = HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: version)
    let products = try await provider.products(inCategory: Self.hostile)
    #expect(products.isEmpty)
    let sent = try provider.describe(CatalogSchema.espm.productsQuery(inCategory: Self.hostile))
    #expect(sent.contains("'Mice''%20or%20CategoryName%20ne%20'''"))
    let query = ODataQuery(entitySet: Product.entitySet)
      .filter(Product.categoryName == Self.hostile)
    #expect(try await provider.count(query) == 0)
    // Had the value become syntax, the filter would have matched every product.
    let broken = ODataQuery(entitySet: Product.entitySet).filter(
      Product.categoryName == "Mice" || Product.categoryName != "")
    #expect(try await provider.count(broken) == 51)
  }

  @Test func injectedCategoryParsesAsOneComparison() throws {
    let filter = try ODataQuery(entitySet: Product.entitySet)
      .filter(Product.categoryName == Self.hostile).queryOptions(version: .v4)[0].value
    let result = try ODataTestServer.runScript("check_filters.py", input: filter + "\n")
    #expect(result.status == 0)
    #expect(result.output == "OK Compare\n")
  }

  @Test func everyV4FilterOfTheMatrixParsesWithOdataQuery() throws {
    var filters: [String] = []
    let renderer = { (expression: ODataExpression) throws -> String in
      try ODataQuery(entitySet: Product.entitySet).filter(expression)
        .queryOptions(version: .v4)[0].value
    }
    for matrixCase in MatrixCase.all {
      if let filter = matrixCase.query.filter {
        filters.append(try renderer(filter))
      }
      for item in matrixCase.query.expand {
        if let filter = item.filter {
          filters.append(try renderer(filter))
        }
      }
    }
    #expect(filters.count >= 40)
    let result = try ODataTestServer.runScript(
      "check_filters.py", input: filters.joined(separator: "\n") + "\n")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == filters.count)
    for (filter, line) in zip(filters, lines) {
      #expect(line.hasPrefix("OK "), "\(filter) -> \(line)")
    }
    #expect(result.status == 0)
  }

  @Test func theParserRejectsBrokenFilters() throws {
    let result = try ODataTestServer.runScript("check_filters.py", input: "Name eq 'a''\n")
    #expect(result.status != 0)
    #expect(result.output.hasPrefix("ERROR"))
  }
}
