/// Percent-encoding of query option values (RFC 3986, UTF-8).
///
/// Everything that could end an option (`&`, `#`), be read as a space (`+`) or start an escape
/// (`%`) is encoded, as are spaces and all non-ASCII bytes. OData punctuation that cannot change
/// the query's structure (`'`, `(`, `)`, `,`, `/`, `:`, `;`, `=`, `$`, `@`, `*`) stays readable.
enum PercentEncoding {
  private static let unreserved: Set<UInt8> = {
    var bytes = Set<UInt8>()
    bytes.formUnion(UInt8(ascii: "A")...UInt8(ascii: "Z"))
    bytes.formUnion(UInt8(ascii: "a")...UInt8(ascii: "z"))
    bytes.formUnion(UInt8(ascii: "0")...UInt8(ascii: "9"))
    for scalar in "-._~'(),/:;=$@*!" {
      if let ascii = scalar.asciiValue {
        bytes.insert(ascii)
      }
    }
    return bytes
  }()

  private static let hexDigits = Array("0123456789ABCDEF".utf8)

  /// Encodes a query option name or value.
  static func encodeQueryComponent(_ text: String) -> String {
    encode(text, keepingSlash: true)
  }

  /// Encodes a path segment such as a key predicate `('HT-1000')`; a `/` in a value is escaped.
  static func encodePathSegment(_ text: String) -> String {
    encode(text, keepingSlash: false)
  }

  private static func encode(_ text: String, keepingSlash: Bool) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if unreserved.contains(byte) && (keepingSlash || byte != UInt8(ascii: "/")) {
        output.append(byte)
      } else {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return String(decoding: output, as: UTF8.self)
  }
}
