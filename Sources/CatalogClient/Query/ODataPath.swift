/// A property path such as `Name` or `Category/MainCategoryName`.
///
/// Each segment must be an OData identifier (letters, digits and `_`, not starting with a digit);
/// anything else is rejected when the query is rendered, so a path can never carry syntax.
public struct ODataPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The segments from the entity to the property.
  public var segments: [String]

  /// Creates a path from its slash-separated form.
  ///
  /// - Parameter path: For example `"Category/MainCategoryName"`.
  public init(_ path: String) {
    segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
  }

  /// Creates a path from its slash-separated form written as a literal.
  ///
  /// - Parameter value: For example `"Name"`.
  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// The slash-separated form.
  public var description: String { segments.joined(separator: "/") }

  /// The validated slash-separated form.
  func rendered() throws(CatalogError) -> String {
    for segment in segments where !Self.isIdentifier(segment) {
      throw CatalogError(
        .unsupportedQuery, "'\(description)' is not a property path of OData identifiers")
    }
    return description
  }

  /// Whether `text` is an OData simple identifier (ASCII subset; ESPM and our servers use ASCII).
  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 128 else {
      return false
    }
    let isLetter = { (scalar: Unicode.Scalar) in
      (scalar >= "A" && scalar <= "Z") || (scalar >= "a" && scalar <= "z") || scalar == "_"
    }
    return isLetter(first)
      && text.unicodeScalars.allSatisfy { isLetter($0) || ($0 >= "0" && $0 <= "9") }
  }
}
