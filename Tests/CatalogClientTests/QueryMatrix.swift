import CatalogClient
import Foundation
import Testing

/// One query of the cross-provider matrix, with the servers that support its features.
struct MatrixCase: Sendable, CustomTestStringConvertible {
  var name: String
  var query: ODataQuery
  var onV2 = true
  var onV4 = true
  /// The fewest rows (or the count) a correct answer has, so an all-empty answer cannot pass.
  var minimumRows = 1

  var testDescription: String { name }
}

extension MatrixCase {
  static let products = ODataQuery(entitySet: Product.entitySet)
  static let categories = ODataQuery(entitySet: ProductCategory.entitySet)

  static func date(_ text: String) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
    let parts = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
    let components = DateComponents(
      year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
      second: parts[5])
    return calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
  }

  static func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
  }

  /// The matrix: every scope-1 feature, tricky literals, paging, counts, keys and expand.
  static let all: [MatrixCase] = [
    MatrixCase(name: "all products, paged", query: products, minimumRows: 51),
    MatrixCase(name: "category eq", query: products.filter(Product.categoryName == "Mice")),
    MatrixCase(
      name: "apostrophe literal", query: products.filter(Product.name == "Joe's Coffee Mug")),
    MatrixCase(
      name: "leading-apostrophe name",
      query: products.filter(Product.name == "O'Neil Laptop Backpack")),
    MatrixCase(name: "Greek letter", query: products.filter(Product.name == "Smartphone Ωmega")),
    MatrixCase(
      name: "sharp s and umlaut", query: products.filter(Product.name == "Größter Becher XL")),
    MatrixCase(name: "tilde n", query: products.filter(Product.name == "Teclado Español Ñ")),
    MatrixCase(
      name: "ampersand in value",
      query: products.filter(Product.mainCategoryName == "Kitchen & Café"), minimumRows: 6),
    MatrixCase(name: "contains", query: products.filter(Product.name.contains("Mouse"))),
    MatrixCase(
      name: "contains apostrophe", query: products.filter(Product.name.contains("'")),
      minimumRows: 6),
    MatrixCase(
      name: "contains double quote",
      query: products.filter(Product.shortDescription.contains("\"")), minimumRows: 5),
    MatrixCase(
      name: "contains percent sign (none)", query: products.filter(Product.name.contains("%")),
      minimumRows: 0),
    MatrixCase(
      name: "contains hash and plus (none)",
      query: products.filter(Product.name.contains("#") || Product.name.contains("+")),
      minimumRows: 0),
    MatrixCase(
      name: "tolower contains non-ASCII",
      query: products.filter(Product.name.lowercased().contains("mäus"))),
    MatrixCase(
      name: "toupper contains non-ASCII",
      query: products.filter(Product.name.uppercased().contains("ÉLÉGANCE"))),
    MatrixCase(
      name: "tolower eq",
      query: products.filter(Product.name.lowercased() == "café crème espresso machine")),
    MatrixCase(name: "startswith", query: products.filter(Product.name.hasPrefix("Notebook"))),
    MatrixCase(name: "endswith", query: products.filter(Product.name.hasSuffix("Mouse"))),
    MatrixCase(name: "decimal gt", query: products.filter(Product.price > decimal("1000"))),
    MatrixCase(name: "decimal le boundary", query: products.filter(Product.price <= decimal("9"))),
    MatrixCase(
      name: "decimal exact fraction", query: products.filter(Product.price == decimal("1399.99"))),
    MatrixCase(
      name: "decimal range",
      query: products.filter(Product.price >= decimal("100") && Product.price < decimal("300"))),
    MatrixCase(
      name: "decimal weight range",
      query: products.filter(Product.weight > decimal("1.5") && Product.weight < decimal("2.2"))),
    MatrixCase(name: "currency ne", query: products.filter(Product.currencyCode != "EUR")),
    MatrixCase(
      name: "Int64 ge", query: products.filter(Product.stockQuantity >= Int64(1000))),
    MatrixCase(name: "Int64 eq zero", query: products.filter(Product.stockQuantity == Int64(0))),
    MatrixCase(
      name: "date gt",
      query: products.filter(Product.updatedTimestamp > date("2024-06-01T00:00:00"))),
    MatrixCase(
      name: "date le boundary",
      query: products.filter(Product.updatedTimestamp <= date("2024-01-15T08:30:00"))),
    MatrixCase(
      name: "or",
      query: products.filter(Product.categoryName == "Mice" || Product.categoryName == "Mugs")),
    MatrixCase(
      name: "not and",
      query: products.filter(
        !(Product.price < decimal("700")) && Product.name.hasPrefix("Smartphone"))
    ),
    MatrixCase(
      name: "parenthesized or inside and",
      query: products.filter(
        (Product.categoryName == "Mice" || Product.categoryName == "Keyboards")
          && Product.price < decimal("40"))),
    MatrixCase(
      name: "and inside or",
      query: products.filter(
        Product.categoryName == "Watches"
          || (Product.categoryName == "Speakers" && Product.currencyCode == "USD"))),
    MatrixCase(
      name: "in (v4.01; or-chain on v2)",
      query: products.filter(Product.categoryName.isIn(["Mice", "Mugs", "Desk Lamps"]))),
    MatrixCase(
      name: "key in", query: products.filter(Product.productId.isIn(["HT-1000", "HT-1100"]))),
    MatrixCase(
      name: "string-named property",
      query: products.filter(ODataProperty<ODataValue>("WeightUnit") == .string("KG")),
      minimumRows: 51),
    MatrixCase(
      name: "orderby two keys, top",
      query: products.orderBy(Product.price.descending, Product.name.ascending).top(5)),
    MatrixCase(
      name: "orderby with filter, skip and top",
      query: products.filter(Product.price > decimal("50"))
        .orderBy(Product.currencyCode.ascending, Product.price.descending).skip(2).top(4)),
    MatrixCase(
      name: "orderby non-ASCII names", query: products.orderBy(Product.name.ascending),
      minimumRows: 51),
    MatrixCase(
      name: "skip past a page", query: products.orderBy(Product.productId.ascending).skip(45)),
    MatrixCase(
      name: "top across pages", query: products.orderBy(Product.productId.ascending).top(7),
      minimumRows: 7),
    MatrixCase(name: "top zero", query: products.top(0), minimumRows: 0),
    MatrixCase(
      name: "inline count with top",
      query: products.filter(Product.price > decimal("100")).inlineCount()
        .orderBy(Product.productId.ascending).top(3)),
    MatrixCase(
      name: "select with filter on unselected property",
      query: products.filter(Product.categoryName == "Mice")
        .select(Product.productId, Product.name, Product.price)),
    MatrixCase(
      name: "select with order on unselected property",
      query: products.select(Product.productId).orderBy(Product.price.descending).top(4)),
    MatrixCase(name: "key lookup", query: products.withKey("HT-1000")),
    MatrixCase(
      name: "key lookup with select",
      query: products.withKey("HT-1063").select(Product.name, Product.price)),
    MatrixCase(
      name: "key with space", query: categories.withKey("Flat Screen Monitors")),
    MatrixCase(
      name: "expand to-one",
      query: products.filter(Product.categoryName == "Mice").expand(ODataExpand(Product.category))),
    MatrixCase(
      name: "expand to-many",
      query: categories.withKey("Mice").expand(ODataExpand(ProductCategory.products))),
    MatrixCase(
      name: "expand with nested select",
      query: products.filter(Product.categoryName == "Headsets").select(Product.productId)
        .expand(ODataExpand(Product.category, select: ["MainCategoryName"]))),
    MatrixCase(
      name: "expand with nested order and top (v4)",
      query: categories.withKey("Mice").expand(
        ODataExpand(
          ProductCategory.products, select: ["ProductId", "Price"],
          orderBy: [Product.price.descending], top: 2)),
      onV2: false),
    MatrixCase(
      name: "expand with nested filter (v4)",
      query: categories.filter(ProductCategory.mainCategoryName == "Accessories").expand(
        ODataExpand(ProductCategory.products, filter: Product.price > decimal("100"))),
      onV2: false),
    MatrixCase(
      name: "filter on navigation path",
      query: products.filter(
        ODataProperty<String>("Category/MainCategoryName") == "Telephony")),
    MatrixCase(
      name: "categories by Int64",
      query: categories.filter(ProductCategory.numberOfProducts >= Int64(4))),
    MatrixCase(name: "search word (v4)", query: products.search(.term("Mouse")), onV2: false),
    MatrixCase(
      name: "search phrase or word (v4)",
      query: products.search(.or(.term("Desk Lamp"), .term("Mug"))), onV2: false),
    MatrixCase(
      name: "search and not (v4)",
      query: products.search(.and(.term("Keyboard"), .not(.term("Ergonomic")))), onV2: false),
    MatrixCase(
      name: "injection attempt",
      query: products.filter(Product.categoryName == "Mice' or CategoryName ne '"),
      minimumRows: 0),
    MatrixCase(
      name: "custom option",
      query: products.filter(Product.categoryName == "Mugs").customOption("sap-client", "001")),
  ]
}
