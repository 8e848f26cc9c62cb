/// Decodes a query component the way form-reading servers (Python's `parse_qs`, which odatapy
/// and pyslet use) do: `+` is a space and `%XX` a byte; the bytes must be UTF-8.
enum FormDecoding {
  static func decode(_ text: String) -> String? {
    var bytes: [UInt8] = []
    var input = Array(text.utf8)[...]
    while let byte = input.popFirst() {
      switch byte {
      case UInt8(ascii: "+"):
        bytes.append(UInt8(ascii: " "))
      case UInt8(ascii: "%"):
        guard input.count >= 2,
          let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
        else {
          return nil
        }
        bytes.append(value)
        input = input.dropFirst(2)
      default:
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }
}
