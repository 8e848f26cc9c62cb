import ClassifierKit
import ImagePipeline
import Testing

@Suite struct DummyClassifierTests {
  let labels = ["Notebooks", "Mice", "Keyboards", "Mugs"]

  func image(_ value: UInt8) throws -> RasterImage {
    try RasterImage(width: 2, height: 1, format: .gray, pixels: [value, 255 - value])
  }

  @Test func cyclingWalksTheLabelsInOrder() async throws {
    let model = try DummyClassifier(labels: labels)
    var firsts: [String] = []
    for _ in 0..<6 {
      firsts.append(try #require(try await model.classify(image: try image(0)).first).label)
    }
    #expect(firsts == ["Notebooks", "Mice", "Keyboards", "Mugs", "Notebooks", "Mice"])
  }

  @Test func scoresAreSoftmaxOfDescendingRanks() async throws {
    let model = try DummyClassifier(labels: labels, derivesFromContent: true)
    let results = try await model.classify(image: try image(7))
    #expect(results.count == 4)
    #expect(abs(results.map(\.confidence).reduce(0, +) - 1) < 1e-6)
    #expect(results.map(\.confidence) == results.map(\.confidence).sorted(by: >))
    let raw = try await model.classify(
      image: try image(7), options: ClassificationOptions(maximumCount: 2, scoring: .raw))
    #expect(raw.map(\.confidence) == [4, 3])
  }

  @Test func contentDerivedDependsOnlyOnTheUprightPicture() async throws {
    let model = try DummyClassifier(labels: labels, derivesFromContent: true)
    let first = try await model.classify(image: try image(1))
    #expect(try await model.classify(image: try image(1)) == first)
    var turned = try RasterImage(width: 1, height: 2, format: .gray, pixels: [1, 254])
    turned.orientation = .left
    #expect(try await model.classify(image: turned) == first)
  }

  @Test func concurrentCallsTakeEachCyclePositionOnce() async throws {
    let model = try DummyClassifier(labels: labels)
    let picture = try image(3)
    let firsts = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<200 {
        group.addTask { try await model.classify(image: picture).first?.index ?? -1 }
      }
      return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
    }
    #expect(firsts == [0: 50, 1: 50, 2: 50, 3: 50])
  }

  @Test func emptyLabelsAreRefused() {
    #expect(throws: ClassificationError.self) { try DummyClassifier(labels: []) }
  }
}
