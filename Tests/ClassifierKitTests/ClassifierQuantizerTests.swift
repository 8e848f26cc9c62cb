import Testing

@testable import ClassifierKit

/// The layers `ClassifierQuantizer` keeps in float32 when the int8 model's agreement is short.
struct ClassifierQuantizerTests {
  /// Leading layers, one more at a time, up to a sixth of the layers (at least one), never all.
  @Test func fallbacksKeepLeadingLayers() {
    let fifty = (0..<50).map { "layer\($0)" }
    let choices = ClassifierQuantizer.fallbacks(fifty)
    #expect(choices.count == 9)
    #expect(choices.first == [])
    #expect(choices.last == Array(fifty.prefix(8)))
    for (count, choice) in choices.enumerated() {
      #expect(choice == Array(fifty.prefix(count)))
    }
    #expect(ClassifierQuantizer.fallbacks(["a", "b"]) == [[], ["a"]])
    #expect(ClassifierQuantizer.fallbacks(["a"]) == [[]])
    #expect(ClassifierQuantizer.fallbacks([]) == [])
  }
}
