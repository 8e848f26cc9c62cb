import NeuralCore
import Testing

/// Records an issue unless `body` throws a ``NeuralCoreError`` with the given code.
func expectNeuralCoreError(
  _ code: NeuralCoreError.Code, _ comment: String = "",
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record(
      "expected a \(code) error, got a value. \(comment)", sourceLocation: sourceLocation)
  } catch let error as NeuralCoreError {
    #expect(error.code == code, "\(comment): \(error)", sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected NeuralCoreError, got \(error)", sourceLocation: sourceLocation)
  }
}
