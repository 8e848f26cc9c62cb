import Foundation

/// A `postgresql://` index location: libpq's connection URI and the table of pictures, named by
/// a `table` query parameter (default `product_pictures`) that libpq does not see.
struct PostgresLocation: Sendable {
  /// The location as given.
  let text: String
  /// The URI handed to libpq (without `table`).
  let conninfo: String
  /// The pictures' table; its HNSW index is `<table>_embedding`.
  let table: String

  /// Whether `location` names a PostgreSQL database rather than a file.
  static func isPostgres(_ location: String) -> Bool {
    location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
  }

  init(_ location: String) throws(SearchError) {
    guard var components = URLComponents(string: location) else {
      throw SearchError(.invalidArgument, "\(location) is not a postgresql:// URL")
    }
    let items = components.queryItems ?? []
    let table = items.last { $0.name == "table" }?.value ?? "product_pictures"
    guard Self.isIdentifier(table) else {
      throw SearchError(
        .invalidArgument,
        "table '\(table)' must be 1 to 48 lowercase letters, digits or underscores, not "
          + "starting with a digit")
    }
    let rest = items.filter { $0.name != "table" }
    components.queryItems = rest.isEmpty ? nil : rest
    guard let conninfo = components.string else {
      throw SearchError(.invalidArgument, "\(location) is not a postgresql:// URL")
    }
    text = location
    self.conninfo = conninfo
    self.table = table
  }

  private static func isIdentifier(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...48).contains(bytes.count), let first = bytes.first, !(48...57).contains(first)
    else { return false }
    return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
  }
}
