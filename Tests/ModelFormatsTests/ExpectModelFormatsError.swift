import ModelFormats
import Testing

/// Records an issue unless `body` throws a ``ModelFormatsError`` with the given code.
func expectModelFormatsError(
  _ code: ModelFormatsError.Code, _ comment: String = "",
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record(
      "expected a \(code) error, got a value. \(comment)", sourceLocation: sourceLocation)
  } catch let error as ModelFormatsError {
    #expect(error.code == code, "\(comment): \(error)", sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected ModelFormatsError, got \(error)", sourceLocation: sourceLocation)
  }
}
