import Foundation

/// Evaluates ``ODataQuery`` values over an ``OfflineCatalog`` with the servers' semantics.
///
/// Semantics follow the OData v4 specification as odatapy implements it: three-valued logic with
/// null, numbers compared by value across Int/Decimal/Double, strings compared and searched by
/// Unicode scalar (Python's `str` order), stable `$orderby` with nulls first, `$search` terms
/// matched case-insensitively in any string property of the entity itself.
struct QueryEvaluator {
  typealias Row = [String: ODataValue]

  struct EntitySet {
    var name: String
    var key: String
    var rows: [Row]
  }

  private let sets: [String: EntitySet]

  init(catalog: OfflineCatalog) {
    let products = catalog.products.map { product -> Row in
      var row: Row = ["ProductId": .string(product.productId)]
      row["Name"] = product.name.map(ODataValue.string) ?? .null
      row["ShortDescription"] = product.shortDescription.map(ODataValue.string) ?? .null
      row["CategoryName"] = product.categoryName.map(ODataValue.string) ?? .null
      row["MainCategoryName"] = product.mainCategoryName.map(ODataValue.string) ?? .null
      row["Price"] = product.price.map(ODataValue.decimal) ?? .null
      row["CurrencyCode"] = product.currencyCode.map(ODataValue.string) ?? .null
      row["PictureUrl"] = product.pictureUrl.map(ODataValue.string) ?? .null
      row["Weight"] = product.weight.map(ODataValue.decimal) ?? .null
      row["WeightUnit"] = product.weightUnit.map(ODataValue.string) ?? .null
      row["StockQuantity"] = product.stockQuantity.map(ODataValue.int64) ?? .null
      row["UpdatedTimestamp"] = product.updatedTimestamp.map(ODataValue.dateTimeOffset) ?? .null
      row["GTIN"] = product.gtin.map(ODataValue.string) ?? .null
      return row
    }
    let categories = catalog.categories.map { category -> Row in
      [
        "CategoryName": .string(category.categoryName),
        "MainCategoryName": category.mainCategoryName.map(ODataValue.string) ?? .null,
        "NumberOfProducts": category.numberOfProducts.map(ODataValue.int64) ?? .null,
      ]
    }
    sets = [
      Product.entitySet: EntitySet(name: Product.entitySet, key: "ProductId", rows: products),
      ProductCategory.entitySet: EntitySet(
        name: ProductCategory.entitySet, key: "CategoryName", rows: categories),
    ]
  }

  /// Navigation properties: (source set, name) -> (target set, is collection); both join on
  /// `CategoryName`.
  private static let navigation: [String: [String: (target: String, isCollection: Bool)]] = [
    Product.entitySet: ["Category": (ProductCategory.entitySet, false)],
    ProductCategory.entitySet: ["Products": (Product.entitySet, true)],
  ]

  private func entitySet(_ name: String) throws(CatalogError) -> EntitySet {
    guard let set = sets[name] else {
      throw CatalogError(.notFound, "the catalog has no entity set '\(name)'")
    }
    return set
  }

  // MARK: - Queries

  func run(_ query: ODataQuery) throws(CatalogError) -> (entities: [ODataEntity], count: Int?) {
    let set = try entitySet(query.entitySet)
    if let key = query.key {
      guard
        let row = set.rows.first(where: {
          Self.compare($0[set.key] ?? .null, .equal, key) == true
        })
      else {
        throw CatalogError(
          .notFound, "no \(set.name) entity with key \(key.literal(for: .v4))")
      }
      return ([try project(row, set: set.name, select: query.select, expand: query.expand)], nil)
    }
    let matches = try matching(set, filter: query.filter, search: query.search)
    var rows = try sorted(matches, set: set.name, by: query.orderBy)
    if let skip = query.skip {
      rows = Array(rows.dropFirst(skip))
    }
    if let top = query.top {
      rows = Array(rows.prefix(top))
    }
    var entities: [ODataEntity] = []
    for row in rows {
      entities.append(try project(row, set: set.name, select: query.select, expand: query.expand))
    }
    return (entities, query.includesCount ? matches.count : nil)
  }

  func count(_ query: ODataQuery) throws(CatalogError) -> Int {
    try matching(try entitySet(query.entitySet), filter: query.filter, search: query.search).count
  }

  private func matching(_ set: EntitySet, filter: ODataExpression?, search: ODataSearch?)
    throws(CatalogError) -> [Row]
  {
    var result: [Row] = []
    for row in set.rows {
      if let filter, try evaluate(filter, row: row, set: set.name) != true {
        continue
      }
      if let search, !Self.matches(search, row: row) {
        continue
      }
      result.append(row)
    }
    return result
  }

  // MARK: - Filter

  private func evaluate(_ expression: ODataExpression, row: Row, set: String)
    throws(CatalogError) -> Bool?
  {
    switch expression.node {
    case .compare(let lhs, let op, let rhs):
      let left = try value(lhs, row: row, set: set)
      let right = try value(rhs, row: row, set: set)
      guard let result = Self.compare(left, op, right) else {
        throw CatalogError(
          .unsupportedQuery,
          "cannot compare \(left.literal(for: .v4)) with \(right.literal(for: .v4))")
      }
      return result
    case .and(let lhs, let rhs):
      let left = try evaluate(lhs, row: row, set: set)
      let right = try evaluate(rhs, row: row, set: set)
      if left == false || right == false {
        return false
      }
      return left == nil || right == nil ? nil : true
    case .or(let lhs, let rhs):
      let left = try evaluate(lhs, row: row, set: set)
      let right = try evaluate(rhs, row: row, set: set)
      if left == true || right == true {
        return true
      }
      return left == nil || right == nil ? nil : false
    case .not(let inner):
      return try evaluate(inner, row: row, set: set).map { !$0 }
    case .contains(let text, let part):
      return try stringTest(text, part, row: row, set: set) { haystack, needle in
        Self.scalarRange(of: needle, in: haystack) != nil
      }
    case .startsWith(let text, let prefix):
      return try stringTest(text, prefix, row: row, set: set) { haystack, needle in
        haystack.unicodeScalars.starts(with: needle.unicodeScalars)
      }
    case .endsWith(let text, let suffix):
      return try stringTest(text, suffix, row: row, set: set) { haystack, needle in
        haystack.unicodeScalars.reversed().starts(with: needle.unicodeScalars.reversed())
      }
    case .isIn(let operand, let values):
      let left = try value(operand, row: row, set: set)
      if case .null = left {
        return nil
      }
      return values.contains { Self.compare(left, .equal, $0) == true }
    case .constant(let value):
      return value
    }
  }

  private func stringTest(
    _ text: ODataOperand, _ part: ODataOperand, row: Row, set: String,
    _ test: (String, String) -> Bool
  ) throws(CatalogError) -> Bool? {
    let haystack = try value(text, row: row, set: set)
    let needle = try value(part, row: row, set: set)
    switch (haystack, needle) {
    case (.string(let haystack), .string(let needle)):
      return test(haystack, needle)
    case (.null, _), (_, .null):
      return nil
    default:
      throw CatalogError(.unsupportedQuery, "string functions need string arguments")
    }
  }

  private func value(_ operand: ODataOperand, row: Row, set: String) throws(CatalogError)
    -> ODataValue
  {
    switch operand {
    case .literal(let value):
      return value
    case .toLower(let inner):
      let text = try value(inner, row: row, set: set)
      if case .string(let string) = text {
        return .string(string.lowercased())
      }
      return .null
    case .toUpper(let inner):
      let text = try value(inner, row: row, set: set)
      if case .string(let string) = text {
        return .string(string.uppercased())
      }
      return .null
    case .property(let path):
      return try resolve(path.segments[...], row: row, set: set)
    }
  }

  private func resolve(_ segments: ArraySlice<String>, row: Row, set: String)
    throws(CatalogError) -> ODataValue
  {
    guard let first = segments.first else {
      throw CatalogError(.unsupportedQuery, "an empty property path")
    }
    if segments.count == 1 {
      guard let value = row[first] else {
        throw CatalogError(.unsupportedQuery, "'\(first)' is not a property of \(set)")
      }
      return value
    }
    guard let link = Self.navigation[set]?[first], !link.isCollection else {
      throw CatalogError(
        .unsupportedQuery, "'\(first)' is not a single-valued navigation of \(set)")
    }
    guard let target = try related(row, set: set, navigation: first).first else {
      return .null
    }
    return try resolve(segments.dropFirst(), row: target, set: link.target)
  }

  private func related(_ row: Row, set: String, navigation: String) throws(CatalogError) -> [Row] {
    guard let link = Self.navigation[set]?[navigation] else {
      throw CatalogError(.unsupportedQuery, "'\(navigation)' is not a navigation of \(set)")
    }
    let target = try entitySet(link.target)
    let joinValue = row["CategoryName"] ?? .null
    return target.rows.filter {
      Self.compare($0["CategoryName"] ?? .null, .equal, joinValue) == true
    }
  }

  // MARK: - Comparison

  /// Compares two values; `nil` when the types cannot be compared.
  static func compare(_ lhs: ODataValue, _ op: ODataComparison, _ rhs: ODataValue) -> Bool? {
    if case .null = lhs {
      return nullComparison(rhs, op)
    }
    if case .null = rhs {
      return nullComparison(lhs, op)
    }
    guard let order = ordering(lhs, rhs) else {
      return nil
    }
    switch op {
    case .equal: return order == 0
    case .notEqual: return order != 0
    case .lessThan: return order < 0
    case .lessThanOrEqual: return order <= 0
    case .greaterThan: return order > 0
    case .greaterThanOrEqual: return order >= 0
    }
  }

  private static func nullComparison(_ other: ODataValue, _ op: ODataComparison) -> Bool {
    let otherIsNull: Bool
    if case .null = other {
      otherIsNull = true
    } else {
      otherIsNull = false
    }
    switch op {
    case .equal: return otherIsNull
    case .notEqual: return !otherIsNull
    case .lessThanOrEqual, .greaterThanOrEqual: return otherIsNull
    case .lessThan, .greaterThan: return false
    }
  }

  /// -1, 0 or 1; `nil` for incompatible types.
  static func ordering(_ lhs: ODataValue, _ rhs: ODataValue) -> Int? {
    if let left = number(lhs), let right = number(rhs) {
      return left < right ? -1 : (left == right ? 0 : 1)
    }
    switch (lhs, rhs) {
    case (.string(let left), .string(let right)):
      if left.unicodeScalars.elementsEqual(right.unicodeScalars) {
        return 0
      }
      return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars) ? -1 : 1
    case (.boolean(let left), .boolean(let right)):
      return left == right ? 0 : (!left ? -1 : 1)
    case (.guid(let left), .guid(let right)):
      let a = left.uuidString.lowercased()
      let b = right.uuidString.lowercased()
      return a == b ? 0 : (a < b ? -1 : 1)
    default:
      guard let left = date(lhs), let right = date(rhs) else {
        return nil
      }
      return left < right ? -1 : (left == right ? 0 : 1)
    }
  }

  private static func number(_ value: ODataValue) -> Decimal? {
    switch value {
    case .int32(let value): return Decimal(value)
    case .int64(let value): return Decimal(value)
    case .decimal(let value): return value
    case .double(let value): return value.isFinite ? Decimal(value) : nil
    case .single(let value): return value.isFinite ? Decimal(Double(value)) : nil
    default: return nil
    }
  }

  private static func date(_ value: ODataValue) -> Date? {
    switch value {
    case .dateTime(let date), .dateTimeOffset(let date): return date
    default: return nil
    }
  }

  private static func scalarRange(of needle: String, in haystack: String) -> Int? {
    let hay = Array(haystack.unicodeScalars)
    let pin = Array(needle.unicodeScalars)
    guard pin.count <= hay.count else {
      return nil
    }
    if pin.isEmpty {
      return 0
    }
    for start in 0...(hay.count - pin.count) where hay[start..<start + pin.count].elementsEqual(pin)
    {
      return start
    }
    return nil
  }

  // MARK: - Search

  private static func matches(_ search: ODataSearch, row: Row) -> Bool {
    switch search {
    case .term(let text):
      let needle = text.lowercased()
      return row.values.contains { value in
        if case .string(let string) = value {
          return scalarRange(of: needle, in: string.lowercased()) != nil
        }
        return false
      }
    case .and(let lhs, let rhs):
      return matches(lhs, row: row) && matches(rhs, row: row)
    case .or(let lhs, let rhs):
      return matches(lhs, row: row) || matches(rhs, row: row)
    case .not(let inner):
      return !matches(inner, row: row)
    }
  }

  // MARK: - Order and shape

  private func sorted(_ rows: [Row], set: String, by keys: [ODataOrder]) throws(CatalogError)
    -> [Row]
  {
    guard !keys.isEmpty else {
      return rows
    }
    var keyed: [(index: Int, keys: [ODataValue], row: Row)] = []
    for (index, row) in rows.enumerated() {
      var values: [ODataValue] = []
      for key in keys {
        values.append(try value(key.operand, row: row, set: set))
      }
      keyed.append((index, values, row))
    }
    var incomparable = false
    keyed.sort { left, right in
      for (position, key) in keys.enumerated() {
        let order: Int
        switch (left.keys[position], right.keys[position]) {
        case (.null, .null): order = 0
        case (.null, _): order = -1
        case (_, .null): order = 1
        case (let a, let b):
          guard let compared = Self.ordering(a, b) else {
            incomparable = true
            return left.index < right.index
          }
          order = compared
        }
        if order != 0 {
          return key.isDescending ? order > 0 : order < 0
        }
      }
      return left.index < right.index
    }
    if incomparable {
      throw CatalogError(.unsupportedQuery, "$orderby mixes values that cannot be compared")
    }
    return keyed.map(\.row)
  }

  private func project(
    _ row: Row, set: String, select: [ODataPath], expand: [ODataExpand]
  ) throws(CatalogError) -> ODataEntity {
    var properties: [String: ODataJSON] = [:]
    let selectsAll = select.isEmpty || select.contains(ODataPath("*"))
    for path in select where path.segments.count == 1 && path.segments[0] != "*" {
      guard row[path.segments[0]] != nil else {
        throw CatalogError(.unsupportedQuery, "'\(path)' is not a property of \(set)")
      }
    }
    for (name, value) in row where selectsAll || select.contains(ODataPath(name)) {
      properties[name] = Self.json(value)
    }
    if !selectsAll, let key = sets[set]?.key {
      properties[key] = row[key].map(Self.json)
    }
    for item in expand {
      guard let name = item.path.segments.first, item.path.segments.count == 1,
        let link = Self.navigation[set]?[name]
      else {
        throw CatalogError(.unsupportedQuery, "'\(item.path)' is not a navigation of \(set)")
      }
      var targets = try related(row, set: set, navigation: name)
      if let filter = item.filter {
        var kept: [Row] = []
        for target in targets where try evaluate(filter, row: target, set: link.target) == true {
          kept.append(target)
        }
        targets = kept
      }
      targets = try sorted(targets, set: link.target, by: item.orderBy)
      if let skip = item.skip {
        targets = Array(targets.dropFirst(skip))
      }
      if let top = item.top {
        targets = Array(targets.prefix(top))
      }
      var expanded: [ODataJSON] = []
      for target in targets {
        let entity = try project(target, set: link.target, select: item.select, expand: item.expand)
        expanded.append(.object(entity.properties))
      }
      properties[name] = link.isCollection ? .array(expanded) : (expanded.first ?? .null)
    }
    return ODataEntity(properties: properties)
  }

  /// The v4 JSON form of a value.
  static func json(_ value: ODataValue) -> ODataJSON {
    switch value {
    case .null: return .null
    case .boolean(let value): return .bool(value)
    case .int32(let value): return .number(String(value))
    case .int64(let value): return .number(String(value))
    case .decimal(let value): return .number(value.description)
    case .double(let value): return .number(value.description)
    case .single(let value): return .number(value.description)
    case .string(let value): return .string(value)
    case .guid(let value): return .string(value.uuidString.lowercased())
    case .dateTime(let value), .dateTimeOffset(let value):
      return .string(ODataValue.iso8601(value, withZone: true))
    }
  }
}
