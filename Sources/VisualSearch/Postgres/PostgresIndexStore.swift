import Foundation
import NeuralCore

/// A store in PostgreSQL with pgvector.
///
/// One row per picture with its `vector(D)` print, an HNSW index over inner products (prints are
/// normalized, so that is cosine similarity), and one row of `vision_catalog_indexes` naming the
/// embedder. Searches are approximate (HNSW with
/// `hnsw.ef_search` of at least 100 and iterative scans for filters); updates run in one
/// transaction on a connection of their own.
struct PostgresIndexStore: IndexStore {
  /// The metadata table: one row per pictures table.
  static let metadataTable = "vision_catalog_indexes"
  /// pgvector's HNSW index takes `vector` columns of at most this many dimensions; larger
  /// prints are searched exactly.
  static let hnswDimensionLimit = 2_000

  let place: PostgresLocation
  let connection: PostgresConnection
  let dimensions: Int
  let embedder: String
  let count: Int

  var location: String { place.text }

  /// Reads what the database holds under `location` (an empty index when nothing yet).
  static func open(_ location: String) async throws(SearchError) -> PostgresIndexStore {
    let place = try PostgresLocation(location)
    let connection = PostgresConnection(conninfo: place.conninfo)
    let exists = try await connection.run(
      "SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL",
      [metadataTable, place.table])
    guard exists.first?.first == "t" else {
      return PostgresIndexStore(
        place: place, connection: connection, dimensions: 0, embedder: "", count: 0)
    }
    let rows = try await connection.run([
      ("SELECT embedder, dimensions FROM \(metadataTable) WHERE name = $1", [place.table])
    ])
    let counted = try await connection.run("SELECT count(*) FROM \(place.table)")
    guard let row = rows.first, let embedder = row[0], let dimensions = row[1].flatMap(Int.init),
      let total = counted.first?.first, let count = total.flatMap(Int.init)
    else {
      return PostgresIndexStore(
        place: place, connection: connection, dimensions: 0, embedder: "", count: 0)
    }
    return PostgresIndexStore(
      place: place, connection: connection, dimensions: dimensions, embedder: embedder,
      count: count)
  }

  func search(_ query: [Float], top: Int, filter: SearchFilter) async throws(SearchError)
    -> [ProductMatch]
  {
    guard count > 0, top > 0 else { return [] }
    guard query.count == dimensions else {
      throw SearchError(
        .invalidArgument,
        "the query has \(query.count) values, the index holds feature prints of \(dimensions)")
    }
    let vector = Self.literal(query)
    let products = filter.productIds.map { Self.arrayLiteral(Array($0)) }
    var limit = top * 4
    while true {
      let rows = try await connection.run([
        (
          "SELECT set_config('hnsw.ef_search', $1, false), "
            + "set_config('hnsw.iterative_scan', 'relaxed_order', false)",
          [String(min(1_000, max(100, limit)))]
        ),
        (
          "SELECT product_id, name, category, source, (embedding <#> $1::vector) AS distance "
            + "FROM \(place.table) WHERE ($2::text IS NULL OR category = $2) "
            + "AND ($3::text[] IS NULL OR product_id = ANY($3::text[])) "
            + "ORDER BY embedding <#> $1::vector LIMIT $4",
          [vector, filter.category, products, String(limit)]
        ),
      ])
      let matches = Self.matches(rows, top: top)
      if matches.count >= top || rows.count < limit || limit >= 40_000 { return matches }
      limit *= 4
    }
  }

  func pictures() async throws(SearchError) -> [IndexedPicture] {
    guard count > 0 else { return [] }
    let rows = try await connection.run(
      "SELECT product_id, name, category, source, content_hash FROM \(place.table) "
        + "ORDER BY row_id")
    return rows.map { row in
      IndexedPicture(
        productId: row[0] ?? "", name: row[1] ?? "", category: row[2] ?? "",
        source: row[3] ?? "", contentHash: row[4] ?? "")
    }
  }

  func apply(_ update: IndexUpdate) async throws(SearchError) {
    try update.validate()
    if count > 0, !update.replacesAll, dimensions != update.dimensions {
      throw SearchError(
        .invalidArgument,
        "the index holds feature prints of \(dimensions) values, not \(update.dimensions): "
          + "rebuild it")
    }
    // Its own connection: a search on the shared one must not see the open transaction.
    let writer = PostgresConnection(conninfo: place.conninfo, timeoutMilliseconds: 3_600_000)
    do {
      try await writer.run(Self.schema(update, table: place.table, replacing: count == 0))
      for picture in update.removed {
        try await writer.run(
          "DELETE FROM \(place.table) WHERE product_id = $1 AND name = $2 AND category = $3 "
            + "AND source = $4 AND content_hash = $5",
          [picture.productId, picture.name, picture.category, picture.source, picture.contentHash]
        )
      }
      var start = 0
      while start < update.added.count {
        let end = min(start + 100, update.added.count)
        try await writer.run([try insertion(update, rows: start..<end)])
        start = end
      }
      try await writer.run([
        (
          "INSERT INTO \(Self.metadataTable) (name, embedder, dimensions) VALUES ($1, $2, $3) "
            + "ON CONFLICT (name) DO UPDATE SET embedder = $2, dimensions = $3",
          [place.table, update.embedder, String(update.dimensions)]
        ),
        ("COMMIT", []),
      ])
    } catch {
      _ = try? await writer.run("ROLLBACK")
      throw error
    }
  }

  /// The statements that open the transaction and make the tables (a fresh pictures table
  /// when the update replaces everything or the index is empty).
  private static func schema(_ update: IndexUpdate, table: String, replacing: Bool)
    -> [(String, [String?])]
  {
    var statements: [(String, [String?])] = [
      ("BEGIN", []),
      ("CREATE EXTENSION IF NOT EXISTS vector", []),
      (
        "CREATE TABLE IF NOT EXISTS \(metadataTable) (name text PRIMARY KEY, "
          + "embedder text NOT NULL, dimensions integer NOT NULL)", []
      ),
    ]
    if update.replacesAll || replacing {
      statements.append(("DROP TABLE IF EXISTS \(table)", []))
    }
    statements.append(
      (
        "CREATE TABLE IF NOT EXISTS \(table) (row_id bigserial PRIMARY KEY, "
          + "product_id text NOT NULL, name text NOT NULL, category text NOT NULL, "
          + "source text NOT NULL, content_hash text NOT NULL, "
          + "embedding vector(\(update.dimensions)) NOT NULL)", []
      ))
    if update.dimensions <= hnswDimensionLimit {
      statements.append(
        (
          "CREATE INDEX IF NOT EXISTS \(table)_embedding ON \(table) "
            + "USING hnsw (embedding vector_ip_ops)", []
        ))
    }
    return statements
  }

  /// One INSERT of added pictures `rows`.
  private func insertion(_ update: IndexUpdate, rows: Range<Int>) throws(SearchError)
    -> (String, [String?])
  {
    var values: [String] = []
    var parameters: [String?] = []
    for row in rows {
      let picture = update.added[row]
      let fields = [
        picture.productId, picture.name, picture.category, picture.source, picture.contentHash,
      ]
      guard fields.allSatisfy({ !$0.utf8.contains(0) }) else {
        throw SearchError(
          .invalidArgument, "a field of \(picture.productId) holds a zero byte")
      }
      let base = parameters.count
      values.append(
        "($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5), "
          + "$\(base + 6)::vector)")
      parameters += fields.map { $0 }
      parameters.append(Self.literal(try update.normalizedVector(row)))
    }
    return (
      "INSERT INTO \(place.table) (product_id, name, category, source, content_hash, "
        + "embedding) VALUES " + values.joined(separator: ", "), parameters
    )
  }

  /// The first `top` distinct products of rows sorted by distance (relaxed-order scans may
  /// return them slightly out of order).
  private static func matches(_ rows: [[String?]], top: Int) -> [ProductMatch] {
    let scored = rows.compactMap { row -> (IndexedPicture, Float)? in
      guard let distance = row[4].flatMap({ Float($0) }) else { return nil }
      let picture = IndexedPicture(
        productId: row[0] ?? "", name: row[1] ?? "", category: row[2] ?? "", source: row[3] ?? "")
      return (picture, -distance)
    }
    return ProductRanking.products(scored.sorted { $0.1 > $1.1 }, top: top)
  }

  /// pgvector's text form of a vector: `[v1,v2,...]`.
  static func literal(_ vector: [Float]) -> String {
    "[" + vector.map { "\($0)" }.joined(separator: ",") + "]"
  }

  /// PostgreSQL's text form of a `text[]`, every element quoted.
  static func arrayLiteral(_ values: [String]) -> String {
    let quoted = values.map { value in
      "\""
        + value.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
    return "{" + quoted.joined(separator: ",") + "}"
  }
}
