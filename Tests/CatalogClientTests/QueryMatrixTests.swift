import CatalogClient
import Foundation
import TestSupport
import Testing

/// Runs every matrix query on the v4 server, the v2 server and the offline provider.
///
/// The server's own evaluation is the answer of a second instance that serves everything in one
/// page; the client, following next links on the instance with 5-entity pages, must return
/// exactly those rows, and the offline provider must agree with both servers.
@Suite(.enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
struct QueryMatrixTests {
  @Test("the matrix has at least 40 queries") func matrixSize() {
    #expect(MatrixCase.all.count >= 40)
  }

  @Test(.timeLimit(.minutes(3)), arguments: MatrixCase.all)
  func providersAgree(_ matrixCase: MatrixCase) async throws {
    let offline = try OfflineCatalogProvider.bundled()
    let query = matrixCase.query
    let expected = try await Self.rows(offline, query, maximumPages: 1)
    #expect(expected.rows.count >= matrixCase.minimumRows || (expected.count ?? 0) > 0)
    var versions: [ODataVersion] = []
    if matrixCase.onV4 {
      versions.append(.v4)
    }
    if matrixCase.onV2 {
      versions.append(.v2)
    }
    for version in versions {
      let kind: ODataTestServer.Kind = version == .v4 ? .v4 : .v2
      let paged = HTTPCatalogProvider(
        serviceRoot: try ODataTestServers.shared(kind).serviceRoot, version: version)
      let oracle = HTTPCatalogProvider(
        serviceRoot: try ODataTestServers.shared(kind, pageSize: 0).serviceRoot, version: version)
      let truth = try await Self.rows(oracle, query, maximumPages: 1)
      let got = try await Self.rows(paged, query, maximumPages: 30)
      #expect(got.rows == truth.rows, "v\(version.rawValue) paged vs server's own evaluation")
      #expect(got.rows == expected.rows, "v\(version.rawValue) vs offline")
      #expect(got.count == expected.count, "v\(version.rawValue) inline count")
      if query.key == nil {
        let serverCount = try await paged.count(query)
        let offlineCount = try await offline.count(query)
        #expect(serverCount == offlineCount, "v\(version.rawValue) /$count")
      }
    }
  }

  /// The rows of a query in comparable form: sorted unless the query orders them.
  static func rows(_ provider: some CatalogProvider, _ query: ODataQuery, maximumPages: Int)
    async throws -> (rows: [String], count: Int?)
  {
    let result = try await provider.fetch(query, maximumPages: maximumPages)
    var rows = result.entities.map {
      canonical($0.properties, select: query.select, expand: query.expand).jsonText
    }
    if query.orderBy.isEmpty {
      rows.sort()
    }
    return (rows, result.count)
  }

  static let numeric: Set<String> = ["Price", "Weight", "StockQuantity", "NumberOfProducts"]

  /// One entity with version-specific forms unified: decimals and integers as exact numbers,
  /// dates as epoch seconds, the v2 server's `EAN` as the `GTIN` it is elsewhere, only the
  /// selected properties.
  static func canonical(
    _ properties: [String: ODataJSON], select: [ODataPath], expand: [ODataExpand]
  ) -> ODataJSON {
    let entity = ODataEntity(properties: properties)
    let selected = Set(select.compactMap(\.segments.first))
    let expanded = Dictionary(
      expand.compactMap { item in item.path.segments.first.map { ($0, item) } },
      uniquingKeysWith: { first, _ in first })
    var result: [String: ODataJSON] = [:]
    for (served, value) in properties {
      let name = served == "EAN" ? "GTIN" : served
      if let item = expanded[name] {
        switch value {
        case .array(let members):
          var nested = members.compactMap(\.objectValue).map {
            canonical($0, select: item.select, expand: item.expand)
          }
          if item.orderBy.isEmpty {
            nested.sort { $0.jsonText < $1.jsonText }
          }
          result[name] = .array(nested)
        case .object(let members):
          result[name] = canonical(members, select: item.select, expand: item.expand)
        default:
          result[name] = value
        }
        continue
      }
      guard selected.isEmpty || selected.contains(name) else {
        continue
      }
      if numeric.contains(name), let number = entity.decimal(name) {
        result[name] = .number(number.description)
      } else if name == "UpdatedTimestamp", let date = entity.date(name) {
        result[name] = .number(String(date.timeIntervalSince1970))
      } else {
        result[name] = value
      }
    }
    return .object(result)
  }
}
