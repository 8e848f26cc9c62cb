/// A free-text `$search` expression (OData v4).
public indirect enum ODataSearch: Sendable, Hashable {
  /// One word or phrase; written as a quoted phrase when it is not a plain word.
  case term(String)
  /// Both must match.
  case and(ODataSearch, ODataSearch)
  /// Either must match.
  case or(ODataSearch, ODataSearch)
  /// Must not match.
  case not(ODataSearch)
}
