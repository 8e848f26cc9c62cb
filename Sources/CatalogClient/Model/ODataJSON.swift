/// A JSON value from an OData payload, with numbers kept as their exact text.
///
/// Keeping the digits matters: v4 sends decimals as JSON numbers (`1399.99`), which a
/// floating-point parse would round.
public indirect enum ODataJSON: Sendable, Hashable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, as written in the payload.
  case number(String)
  /// A string.
  case string(String)
  /// An array.
  case array([ODataJSON])
  /// An object.
  case object([String: ODataJSON])

  /// The string, when this is a string.
  public var stringValue: String? {
    if case .string(let value) = self {
      return value
    }
    return nil
  }

  /// The object's members, when this is an object.
  public var objectValue: [String: ODataJSON]? {
    if case .object(let value) = self {
      return value
    }
    return nil
  }

  /// The elements, when this is an array.
  public var arrayValue: [ODataJSON]? {
    if case .array(let value) = self {
      return value
    }
    return nil
  }

  /// The member with a given name, when this is an object that has it.
  ///
  /// - Parameter name: The member name.
  public subscript(name: String) -> ODataJSON? {
    objectValue?[name]
  }

  /// The JSON text of this value (members sorted by name, so equal values print equally).
  public var jsonText: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null:
      output += "null"
    case .bool(let value):
      output += value ? "true" : "false"
    case .number(let text):
      output += text
    case .string(let value):
      Self.writeString(value, to: &output)
    case .array(let values):
      output += "["
      for (index, value) in values.enumerated() {
        if index > 0 {
          output += ","
        }
        value.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, name) in members.keys.sorted().enumerated() {
        if index > 0 {
          output += ","
        }
        Self.writeString(name, to: &output)
        output += ":"
        members[name]?.write(to: &output)
      }
      output += "}"
    }
  }

  private static func writeString(_ value: String, to output: inout String) {
    output += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          output.unicodeScalars.append(scalar)
        }
      }
    }
    output += "\""
  }
}
