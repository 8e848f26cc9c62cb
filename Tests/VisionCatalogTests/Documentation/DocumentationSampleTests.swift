import Foundation
import TestSupport
import Testing

/// Every Swift sample in README.md and the DocC articles is compiled.
///
/// A sample's code lines must appear, in order, in `DocumentationSamples.swift`, which this test
/// target compiles (with warnings as errors in CI). A sample edited in the docs but not here, or the other way round, fails.
@Suite struct DocumentationSampleTests {
  /// The documents whose samples must compile: README.md and every DocC article.
  static let documents: [URL] = {
    let root = CorpusLocator.packageRoot
    var found = [root.appendingPathComponent("README.md")]
    let sources = root.appendingPathComponent("Sources")
    let modules =
      (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
    for module in modules.sorted() {
      let catalog = sources.appendingPathComponent("\(module)/Documentation.docc")
      let articles = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
      found += articles.sorted().filter { $0.hasSuffix(".md") }.map {
        catalog.appendingPathComponent($0)
      }
    }
    return found
  }()

  /// The compiled samples, as normalized code lines.
  static let compiled: [String] = {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("DocumentationSamples.swift")
    return codeLines(of: (try? String(contentsOf: file, encoding: .utf8)) ?? "")
  }()

  /// The lines that carry code: trailing `//` comments, blank lines, comment lines and imports
  /// left out, leading and trailing spaces trimmed.
  static func codeLines(of text: some StringProtocol) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
      var code = Substring(line)
      if let comment = code.range(of: "  //") ?? code.range(of: " // ") {
        code = code[..<comment.lowerBound]
      }
      let trimmed = code.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty, !trimmed.hasPrefix("//"), !trimmed.hasPrefix("import ") else {
        return nil
      }
      return trimmed
    }
  }

  /// The Swift code blocks of a Markdown document.
  static func swiftBlocks(in text: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
      } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
        blocks.append(current?.joined(separator: "\n") ?? "")
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// Whether `lines` appear contiguously in `haystack`.
  static func contains(_ haystack: [String], _ lines: [String]) -> Bool {
    guard !lines.isEmpty, lines.count <= haystack.count else { return lines.isEmpty }
    return (0...(haystack.count - lines.count)).contains { start in
      Array(haystack[start..<(start + lines.count)]) == lines
    }
  }

  @Test func everySampleIsCompiled() throws {
    var checked = 0
    for document in Self.documents {
      let text = try String(contentsOf: document, encoding: .utf8)
      for (position, block) in Self.swiftBlocks(in: text).enumerated() {
        let lines = Self.codeLines(of: block)
        guard !lines.isEmpty else { continue }
        checked += 1
        let isCompiled = Self.contains(Self.compiled, lines)
        let name = "sample \(position + 1) of \(document.lastPathComponent)"
        #expect(isCompiled, "\(name) is not in DocumentationSamples.swift:\n\(block)")
      }
    }
    #expect(checked >= 20, "only \(checked) samples found")
  }

  @Test func theCheckNoticesAnEditedSample() {
    let sample = Self.codeLines(of: "let x = 1\nprint(x)  // one")
    #expect(Self.contains(["a", "let x = 1", "print(x)", "b"], sample))
    #expect(!Self.contains(["let x = 1", "print(y)"], sample))
  }
}
