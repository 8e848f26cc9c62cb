import Foundation
import VisionCatalog

/// A plain-text table of products with prices formatted for their currency.
struct ProductTable {
  let products: [Product]

  init(_ products: [Product]) {
    self.products = products
  }

  var text: String {
    let rows = products.map { product in
      [product.productId, product.name ?? "", Self.price(of: product)]
    }
    let header = ["ID", "NAME", "PRICE"]
    let widths = (0..<header.count).map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    return ([header] + rows).map { row in
      row.enumerated().map { column, cell in
        column == row.count - 1
          ? String(repeating: " ", count: widths[column] - cell.count) + cell
          : cell + String(repeating: " ", count: widths[column] - cell.count)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }

  /// The price in the product's currency, as a person in the en_US locale reads it.
  static func price(of product: Product) -> String {
    guard let price = product.price else { return "" }
    let code = product.currencyCode ?? ""
    let formatter = NumberFormatter()
    formatter.locale = Locale(identifier: "en_US")
    formatter.numberStyle = code.isEmpty ? .decimal : .currency
    formatter.currencyCode = code
    formatter.minimumFractionDigits = 2
    formatter.maximumFractionDigits = 2
    return formatter.string(from: price as NSDecimalNumber) ?? "\(price) \(code)"
  }
}
