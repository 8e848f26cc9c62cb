import Foundation
import ImagePipeline
import TestSupport
import Testing

@testable import ClassifierKit

/// The default feature printer: its embedded in-store mean is its data file, a catalog print
/// does not depend on which way the product faces (the mirror image prints the same), prints
/// are unit vectors, and bad input is a typed error.
@Suite(.enabled(if: ModelFixtures.checkpoint != nil, ModelFixtures.checkpointSkipReason))
struct FeaturePrinterTests {
  static let photo = CorpusLocator.packageRoot.appendingPathComponent("Samples/coffee.png")

  @Test func inStoreMeanEqualsItsFile() throws {
    let file = CorpusLocator.packageRoot.appendingPathComponent(
      "Sources/ClassifierKit/Resources/in-store-photo-mean.txt")
    let values = try String(contentsOf: file, encoding: .utf8).split(whereSeparator: \.isNewline)
      .compactMap { Float($0) }
    #expect(values == InStorePhotoMean.lite0)
    #expect(values.count == 1280)
  }

  @Test func mirroringReversesEveryRow() {
    let planes: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    #expect(FeaturePrinter.mirrored(planes, width: 3) == [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10])
  }

  @Test func aCatalogPrintIsTheSameForTheMirrorImage() throws {
    let printer = try FeaturePrinter(threadCount: 1)
    var image = try ImageSource.file(Self.photo).decoded(for: printer.backbone.inputSpec).image
    let print = try printer.featurePrint(of: .image(image), role: .catalog)
    image.orientation = .upMirrored
    let mirrored = try printer.featurePrint(of: .image(image), role: .catalog)
    #expect(print.values.count == 1280)
    let norm = print.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
    #expect(abs(norm - 1) < 1e-5)
    #expect(try #require(print.similarity(to: mirrored)) > 0.999)
    // A query is prepared otherwise (the classifier's crop, centered on in-store photos).
    let query = try printer.featurePrint(of: .image(image), role: .query)
    #expect(try #require(query.similarity(to: print)) < 0.99)
    // Batched prints are the prints one by one.
    let batch = printer.featurePrints(
      of: [.file(Self.photo), .data(Data("no image".utf8))], role: .catalog)
    #expect(try batch[0].get().similarity(to: print).map { $0 > 0.9999 } == true)
    #expect(throws: ClassificationError.self) { try batch[1].get() }
  }

  @Test func badInputIsATypedError() throws {
    let printer = try FeaturePrinter(threadCount: 1)
    let error = #expect(throws: ClassificationError.self) {
      try printer.featurePrint(of: .data(Data([0xFF, 0xD8, 0xFF, 0x00])), role: .query)
    }
    #expect(error?.code == .invalidImage)
    let other = #expect(throws: ClassificationError.self) {
      try FeaturePrinter(identity: "another-network 1", threadCount: 1)
    }
    #expect(other?.code == .modelUnavailable)
    #expect(throws: ClassificationError.self) { try ImageFeaturePrint(values: [0, 0]) }
    #expect(throws: ClassificationError.self) { try ImageFeaturePrint(values: [.nan, 1]) }
    let a = try ImageFeaturePrint(values: [3, 4])
    #expect(a.values == [0.6, 0.8])
    #expect(try #require(a.distance(to: try ImageFeaturePrint(values: [-3, -4]))) == 2)
    #expect(a.similarity(to: try ImageFeaturePrint(values: [1, 2, 3])) == nil)
  }
}
