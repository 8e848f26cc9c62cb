public import Foundation

extension ODataQuery {
  /// The query's resource path and options as sent, relative to the service root.
  ///
  /// For example `Products?$filter=CategoryName%20eq%20'Mice'&$top=5`. Values are written as
  /// version-specific literals and percent-encoded (UTF-8), so no value can add, end or change an
  /// option.
  ///
  /// - Parameter version: The protocol version to write for.
  /// - Returns: The relative URL text.
  /// - Throws: ``CatalogError/Code/invalidArgument`` when a chaining method was given an argument
  ///   it cannot accept, such as a negative `top(_:)`;
  ///   ``CatalogError/Code/unsupportedQuery`` when the query uses a feature the version lacks
  ///   (`$search` or nested expand options on v2) or a name is not an OData identifier.
  public func relativeURL(version: ODataVersion) throws(CatalogError) -> String {
    // Options first, so an argument error is reported before a name error.
    let options = try queryOptions(version: version)
    var path = try resourcePath(version: version)
    if !options.isEmpty {
      path +=
        "?"
        + options.map {
          PercentEncoding.encodeQueryComponent($0.name) + "="
            + PercentEncoding.encodeQueryComponent($0.value)
        }
        .joined(separator: "&")
    }
    return path
  }

  /// The absolute URL of the query under a service root.
  ///
  /// - Parameters:
  ///   - serviceRoot: The service root, for example `https://host/sap/opu/odata/ESPM/`.
  ///   - version: The protocol version to write for.
  /// - Returns: The URL to send.
  /// - Throws: ``CatalogError/Code/invalidArgument`` or ``CatalogError/Code/unsupportedQuery`` as
  ///   for ``relativeURL(version:)``, or ``CatalogError/Code/invalidURL`` when the result is not a
  ///   URL.
  public func url(serviceRoot: URL, version: ODataVersion) throws(CatalogError) -> URL {
    let relative = try relativeURL(version: version)
    var root = serviceRoot.absoluteString
    if !root.hasSuffix("/") {
      root += "/"
    }
    guard let url = URL(string: root + relative) else {
      throw CatalogError(.invalidURL, "cannot form a URL from \(root) and \(relative)")
    }
    return url
  }

  /// The query options as unencoded name/value pairs, in the order they are sent.
  ///
  /// - Parameter version: The protocol version to write for.
  /// - Returns: Pairs such as `("$filter", "CategoryName eq 'Mice'")`.
  /// - Throws: ``CatalogError/Code/invalidArgument`` or ``CatalogError/Code/unsupportedQuery`` as
  ///   for ``relativeURL(version:)``.
  public func queryOptions(version: ODataVersion) throws(CatalogError) -> [(
    name: String, value: String
  )] {
    try validateArguments()
    var options: [(name: String, value: String)] = []
    if let filter {
      options.append(("$filter", try ODataRenderer(version: version).render(filter)))
    }
    if countMode != .only {
      var selected = try select.map { (path) throws(CatalogError) in try path.rendered() }
      var expanded: [String] = []
      for item in expand {
        switch version {
        case .v4:
          expanded.append(try ODataRenderer(version: version).render(item))
        case .v2:
          let (paths, nestedSelect) = try ODataRenderer.v2Expand(item, prefix: "")
          expanded += paths
          if !nestedSelect.isEmpty && selected.isEmpty {
            selected.append("*")
          }
          selected += nestedSelect
        }
      }
      if !selected.isEmpty {
        options.append(("$select", selected.joined(separator: ",")))
      }
      if !expanded.isEmpty {
        options.append(("$expand", expanded.joined(separator: ",")))
      }
      if !orderBy.isEmpty {
        options.append(("$orderby", try ODataRenderer(version: version).render(orderBy)))
      }
      if let top {
        options.append(("$top", String(top)))
      }
      if let skip {
        options.append(("$skip", String(skip)))
      }
      if countMode == .inline {
        options.append(version == .v4 ? ("$count", "true") : ("$inlinecount", "allpages"))
      }
    }
    if let search {
      guard version == .v4 else {
        throw CatalogError(.unsupportedQuery, "$search needs OData v4")
      }
      options.append(("$search", try ODataRenderer.render(search)))
    }
    for option in customOptions {
      guard Self.isCustomOptionName(option.name) else {
        throw CatalogError(.unsupportedQuery, "'\(option.name)' is not a custom option name")
      }
      options.append((option.name, option.value))
    }
    return options
  }

  private func resourcePath(version: ODataVersion) throws(CatalogError) -> String {
    guard ODataPath.isIdentifier(entitySet) else {
      throw CatalogError(.unsupportedQuery, "'\(entitySet)' is not an entity set name")
    }
    var path = entitySet
    if let key {
      guard countMode != .only else {
        throw CatalogError(.unsupportedQuery, "a single entity has no $count")
      }
      path += PercentEncoding.encodePathSegment("(" + key.literal(for: version) + ")")
    }
    if countMode == .only {
      path += "/$count"
    }
    return path
  }

  private static func isCustomOptionName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first != "$", first != "@" else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      ($0 >= "A" && $0 <= "Z") || ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9")
        || $0 == "-" || $0 == "_" || $0 == "."
    }
  }
}

/// Writes filter, order and expand trees as OData text for one version.
struct ODataRenderer {
  let version: ODataVersion

  func render(_ expression: ODataExpression) throws(CatalogError) -> String {
    switch expression.node {
    case .compare(let lhs, let op, let rhs):
      return "\(try render(lhs)) \(op.rawValue) \(try render(rhs))"
    case .and(let lhs, let rhs):
      return "\(try grouped(lhs)) and \(try grouped(rhs))"
    case .or(let lhs, let rhs):
      return "\(try grouped(lhs)) or \(try grouped(rhs))"
    case .not(let operand):
      return "not (\(try render(operand)))"
    case .contains(let text, let part):
      switch version {
      case .v4: return "contains(\(try render(text)),\(try render(part)))"
      case .v2: return "substringof(\(try render(part)),\(try render(text)))"
      }
    case .startsWith(let text, let prefix):
      return "startswith(\(try render(text)),\(try render(prefix)))"
    case .endsWith(let text, let suffix):
      return "endswith(\(try render(text)),\(try render(suffix)))"
    case .isIn(let operand, let values):
      guard !values.isEmpty else {
        return "false"
      }
      let term = try render(operand)
      switch version {
      case .v4:
        return "\(term) in (" + values.map { $0.literal(for: version) }.joined(separator: ",") + ")"
      case .v2:
        // v2 has no `in`; an `or` chain of equalities means the same.
        return "("
          + values.map { "\(term) eq \($0.literal(for: version))" }.joined(separator: " or ") + ")"
      }
    case .constant(let value):
      return value ? "true" : "false"
    }
  }

  private func grouped(_ expression: ODataExpression) throws(CatalogError) -> String {
    switch expression.node {
    case .and, .or:
      return "(\(try render(expression)))"
    default:
      return try render(expression)
    }
  }

  func render(_ operand: ODataOperand) throws(CatalogError) -> String {
    switch operand {
    case .property(let path):
      return try path.rendered()
    case .literal(let value):
      return value.literal(for: version)
    case .toLower(let inner):
      return "tolower(\(try render(inner)))"
    case .toUpper(let inner):
      return "toupper(\(try render(inner)))"
    }
  }

  func render(_ orders: [ODataOrder]) throws(CatalogError) -> String {
    var keys: [String] = []
    for order in orders {
      keys.append(try render(order.operand) + (order.isDescending ? " desc" : ""))
    }
    return keys.joined(separator: ",")
  }

  func render(_ item: ODataExpand) throws(CatalogError) -> String {
    var nested: [String] = []
    if !item.select.isEmpty {
      let paths = try item.select.map { (path) throws(CatalogError) in try path.rendered() }
      nested.append("$select=" + paths.joined(separator: ","))
    }
    if let filter = item.filter {
      nested.append("$filter=" + (try render(filter)))
    }
    if !item.orderBy.isEmpty {
      nested.append("$orderby=" + (try render(item.orderBy)))
    }
    if let top = item.top {
      nested.append("$top=\(top)")
    }
    if let skip = item.skip {
      nested.append("$skip=\(skip)")
    }
    if !item.expand.isEmpty {
      let inner = try item.expand.map { (child) throws(CatalogError) in try render(child) }
      nested.append("$expand=" + inner.joined(separator: ","))
    }
    let path = try item.path.rendered()
    return nested.isEmpty ? path : path + "(" + nested.joined(separator: ";") + ")"
  }

  /// v2 expands nested items as `Nav/Inner` paths and selects expanded properties as `Nav/Prop`.
  static func v2Expand(_ item: ODataExpand, prefix: String) throws(CatalogError) -> (
    expand: [String], select: [String]
  ) {
    guard item.filter == nil, item.orderBy.isEmpty, item.top == nil, item.skip == nil else {
      throw CatalogError(
        .unsupportedQuery, "OData v2 cannot filter, order or page inside $expand=\(item.path)")
    }
    let path = prefix + (try item.path.rendered())
    var expand = [path]
    var select = try item.select.map { (inner) throws(CatalogError) in
      path + "/" + (try inner.rendered())
    }
    for child in item.expand {
      let nested = try v2Expand(child, prefix: path + "/")
      expand = expand.filter { $0 != path } + nested.expand
      select += nested.select
    }
    return (expand, select)
  }

  /// The v4 text of a term for an error message, written even where rendering would reject it.
  static func summary(of operand: ODataOperand) -> String {
    switch operand {
    case .property(let path): path.description
    case .literal(let value): value.literal(for: .v4)
    case .toLower(let inner): "tolower(\(summary(of: inner)))"
    case .toUpper(let inner): "toupper(\(summary(of: inner)))"
    }
  }

  static func render(_ search: ODataSearch) throws(CatalogError) -> String {
    switch search {
    case .term(let text):
      return word(text)
    case .and(let lhs, let rhs):
      return "(\(try render(lhs)) AND \(try render(rhs)))"
    case .or(let lhs, let rhs):
      return "(\(try render(lhs)) OR \(try render(rhs)))"
    case .not(let operand):
      guard case .term(let text) = operand else {
        throw CatalogError(.unsupportedQuery, "$search allows NOT only before a word or phrase")
      }
      return "NOT " + word(text)
    }
  }

  private static func word(_ text: String) -> String {
    let isPlain =
      !text.isEmpty && !["AND", "OR", "NOT"].contains(text)
      && text.unicodeScalars.allSatisfy {
        ($0 >= "A" && $0 <= "Z") || ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9")
      }
    if isPlain {
      return text
    }
    // Per Unicode scalar, so a quote or backslash joined to a combining mark is still escaped.
    var phrase = String.UnicodeScalarView(["\""])
    for scalar in text.unicodeScalars {
      if scalar == "\\" || scalar == "\"" {
        phrase.append("\\")
      }
      phrase.append(scalar)
    }
    phrase.append("\"")
    return String(phrase)
  }
}
