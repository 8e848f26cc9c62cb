import Foundation

/// Reads v2 and v4 JSON payloads: collections, single entities, counts and error bodies.
enum ODataPayload {
  struct Collection {
    var entities: [ODataEntity]
    var count: Int?
    var nextLink: String?
  }

  static func collection(_ body: Data, version: ODataVersion) throws(CatalogError) -> Collection {
    let root = try JSONParser.parse(Array(body))
    switch version {
    case .v4:
      guard let values = root["value"]?.arrayValue else {
        throw CatalogError(.malformedResponse, "v4 collection without a \"value\" array")
      }
      return Collection(
        entities: try entities(values),
        count: try count(root["@odata.count"] ?? root["@count"]),
        nextLink: root["@odata.nextLink"]?.stringValue ?? root["@nextLink"]?.stringValue)
    case .v2:
      guard let envelope = root["d"] else {
        throw CatalogError(.malformedResponse, "v2 payload without a \"d\" member")
      }
      if let values = envelope.arrayValue {
        return Collection(entities: try entities(values), count: nil, nextLink: nil)
      }
      guard let values = envelope["results"]?.arrayValue else {
        throw CatalogError(.malformedResponse, "v2 collection without a \"results\" array")
      }
      // `__next` is a string in the v2 spec; pyslet sends an object {"uri": …}.
      let next = envelope["__next"]?.stringValue ?? envelope["__next"]?["uri"]?.stringValue
      return Collection(
        entities: try entities(values), count: try count(envelope["__count"]), nextLink: next)
    }
  }

  static func entity(_ body: Data, version: ODataVersion) throws(CatalogError) -> ODataEntity {
    let root = try JSONParser.parse(Array(body))
    let object: [String: ODataJSON]?
    switch version {
    case .v4:
      object = root.objectValue
    case .v2:
      object = (root["d"]?["results"] ?? root["d"])?.objectValue
    }
    guard let object else {
      throw CatalogError(.malformedResponse, "the payload is not an entity object")
    }
    return ODataEntity.normalized(object)
  }

  /// `/$count` answers with the bare number as text.
  static func plainCount(_ body: Data) throws(CatalogError) -> Int {
    let text = String(decoding: body.prefix(64), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard body.count <= 64, let value = Int(text), value >= 0 else {
      throw CatalogError(.malformedResponse, "a $count response must be a number, got '\(text)'")
    }
    return value
  }

  /// The OData error of a failed response, in the v4 or SAP v2 shape, when the body has one.
  static func serviceError(_ body: Data) -> ODataServiceError? {
    guard let root = try? JSONParser.parse(Array(body)), let error = root["error"] else {
      return nil
    }
    let code: String
    switch error["code"] {
    case .string(let text), .number(let text): code = text
    default: code = ""
    }
    switch error["message"] {
    case .string(let text):
      return ODataServiceError(code: code, message: text)
    case .object(let members):
      return ODataServiceError(
        code: code, message: members["value"]?.stringValue ?? "",
        language: members["lang"]?.stringValue)
    default:
      return ODataServiceError(code: code, message: "")
    }
  }

  private static func entities(_ values: [ODataJSON]) throws(CatalogError) -> [ODataEntity] {
    var result: [ODataEntity] = []
    result.reserveCapacity(values.count)
    for value in values {
      guard let object = value.objectValue else {
        throw CatalogError(.malformedResponse, "a collection member is not an object")
      }
      result.append(ODataEntity.normalized(object))
    }
    return result
  }

  /// Counts arrive as numbers (v4, pyslet) or strings (SAP v2).
  private static func count(_ value: ODataJSON?) throws(CatalogError) -> Int? {
    switch value {
    case nil, .null?:
      return nil
    case .number(let text)?, .string(let text)?:
      guard let count = Int(text), count >= 0 else {
        throw CatalogError(.malformedResponse, "invalid count '\(text)'")
      }
      return count
    default:
      throw CatalogError(.malformedResponse, "invalid count")
    }
  }
}
