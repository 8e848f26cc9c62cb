/// A strict JSON parser (RFC 8259) producing ``ODataJSON`` with exact number text.
///
/// Nesting depth is bounded so hostile input cannot exhaust the stack.
struct JSONParser {
  private let bytes: [UInt8]
  private var index = 0
  private let maximumDepth: Int

  private init(bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  /// Parses one JSON document; trailing non-whitespace is an error.
  static func parse(_ bytes: [UInt8], maximumDepth: Int = 64) throws(CatalogError) -> ODataJSON {
    var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
    if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      parser.index = 3
    }
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else {
      throw parser.failure("unexpected text after the JSON value")
    }
    return value
  }

  private func failure(_ reason: String) -> CatalogError {
    CatalogError(.malformedResponse, "invalid JSON at byte \(index): \(reason)")
  }

  private mutating func skipWhitespace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
      index += 1
    }
  }

  private mutating func parseValue(depth: Int) throws(CatalogError) -> ODataJSON {
    guard depth < maximumDepth else {
      throw failure("nesting deeper than \(maximumDepth)")
    }
    skipWhitespace()
    guard index < bytes.count else {
      throw failure("unexpected end")
    }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      return try parseObject(depth: depth)
    case UInt8(ascii: "["):
      return try parseArray(depth: depth)
    case UInt8(ascii: "\""):
      return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectWord("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectWord("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectWord("null")
      return .null
    default:
      return .number(try parseNumber())
    }
  }

  private mutating func expectWord(_ word: String) throws(CatalogError) {
    let expected = Array(word.utf8)
    guard index + expected.count <= bytes.count,
      Array(bytes[index..<index + expected.count]) == expected
    else {
      throw failure("expected \(word)")
    }
    index += expected.count
  }

  private mutating func parseObject(depth: Int) throws(CatalogError) -> ODataJSON {
    index += 1
    var members: [String: ODataJSON] = [:]
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("expected a member name")
      }
      let name = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw failure("expected ':'")
      }
      index += 1
      members[name] = try parseValue(depth: depth + 1)
      skipWhitespace()
      guard index < bytes.count else {
        throw failure("unterminated object")
      }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      } else {
        throw failure("expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray(depth: Int) throws(CatalogError) -> ODataJSON {
    index += 1
    var values: [ODataJSON] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(values)
    }
    while true {
      values.append(try parseValue(depth: depth + 1))
      skipWhitespace()
      guard index < bytes.count else {
        throw failure("unterminated array")
      }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(values)
      } else {
        throw failure("expected ',' or ']'")
      }
    }
  }

  private mutating func parseNumber() throws(CatalogError) -> String {
    let start = index
    let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
      index += 1
    }
    guard index < bytes.count, isDigit(bytes[index]) else {
      throw failure("unexpected character")
    }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("expected digits after '.'")
      }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("expected exponent digits")
      }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  private mutating func parseString() throws(CatalogError) -> String {
    index += 1
    var scalars = String.UnicodeScalarView()
    var run: [UInt8] = []
    func flush() throws(CatalogError) {
      guard !run.isEmpty else {
        return
      }
      guard let text = String(validating: run, as: UTF8.self) else {
        throw failure("invalid UTF-8 in a string")
      }
      scalars.append(contentsOf: text.unicodeScalars)
      run.removeAll(keepingCapacity: true)
    }
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        try flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        try flush()
        index += 1
        guard index < bytes.count else {
          throw failure("unterminated escape")
        }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"):
          scalars.append(try parseUnicodeEscape())
        default:
          throw failure("unknown escape")
        }
      default:
        guard byte >= 0x20 else {
          throw failure("control character in a string")
        }
        run.append(byte)
        index += 1
      }
    }
    throw failure("unterminated string")
  }

  private mutating func parseHex4() throws(CatalogError) -> UInt32 {
    guard index + 4 <= bytes.count,
      let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
    else {
      throw failure("bad \\u escape")
    }
    index += 4
    return value
  }

  private mutating func parseUnicodeEscape() throws(CatalogError) -> Unicode.Scalar {
    let first = try parseHex4()
    if (0xD800..<0xDC00).contains(first) {
      guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
        bytes[index + 1] == UInt8(ascii: "u")
      else {
        throw failure("lone surrogate")
      }
      index += 2
      let second = try parseHex4()
      guard (0xDC00..<0xE000).contains(second),
        let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
      else {
        throw failure("bad surrogate pair")
      }
      return scalar
    }
    guard let scalar = Unicode.Scalar(first) else {
      throw failure("lone surrogate")
    }
    return scalar
  }
}
