/// The OData protocol version a service speaks; it decides literal forms, option names and JSON.
public enum ODataVersion: Int, Sendable, Hashable, CaseIterable {
  /// OData v2 (SAP Gateway, ESPM): `$inlinecount`, `substringof`, `{"d":…}` payloads.
  case v2 = 2
  /// OData v4 / v4.01: `$count=true`, `contains`, `in`, `$search`, `{"value":[…]}` payloads.
  case v4 = 4
}
