import CatalogClient
import Foundation
import ImagePipeline
import TestSupport
import Testing

@testable import Barcodes

/// Issue 42's bar: on the generated photos (every symbology, phone-like distortions, 12 MP
/// photos, negatives and faked check digits), the reader reads at least as many codes right as
/// zxing-cpp's Python binding did on the same files, and reports no more wrong GTINs.
@Suite(.enabled(if: BarcodeFixtures.isGenerated, Comment(rawValue: BarcodeFixtures.skipReason)))
struct ReadingRateTests {
  private struct Tally: CustomStringConvertible {
    var right = 0
    var wrongGTINs = 0
    var description: String { "\(right) right, \(wrongGTINs) wrong GTINs" }
  }

  @Test func readsAtLeastAsManyAsTheBindingAndNoMoreWrongGTINs() throws {
    let root = BarcodeFixtures.generated
    let expected = try BarcodeFixtures.codes(in: root.appendingPathComponent("expected.json"))
    let reference = try BarcodeFixtures.codes(in: root.appendingPathComponent("reference.json"))
    let reader = BarcodeReader()
    var ours = Tally()
    var theirs = Tally()
    var missed: [String] = []
    for (file, codes) in expected.sorted(by: { $0.key < $1.key }) {
      let found = try reader.read(.file(root.appendingPathComponent(file)))
      let foundCodes = found.map {
        BarcodeFixtures.Code(format: $0.symbology.rawValue, text: $0.text, gtin: $0.gtin?.digits)
      }
      let before = ours.right
      Self.tally(foundCodes, against: codes, into: &ours)
      Self.tally(reference[file] ?? [], against: codes, into: &theirs)
      if ours.right == before, !codes.isEmpty { missed.append(file) }
    }
    print("barcodes: ours \(ours), zxing-cpp's binding \(theirs); we missed \(missed)")
    #expect(ours.right >= theirs.right, "ours \(ours), the binding's \(theirs)")
    #expect(ours.wrongGTINs <= theirs.wrongGTINs, "ours \(ours), the binding's \(theirs)")
  }

  /// Counts the codes of the truth that `found` reads right (the same GTIN-14 when the code
  /// has one, else the same text), and the GTINs `found` reports that the photo does not hold.
  private static func tally(
    _ found: [BarcodeFixtures.Code], against truth: [BarcodeFixtures.Code], into tally: inout Tally
  ) {
    for code in truth {
      let read = found.contains { candidate in
        if let gtin = code.gtin { return candidate.gtin == gtin }
        return candidate.text == code.text
      }
      if read { tally.right += 1 }
    }
    let gtins = Set(truth.compactMap(\.gtin))
    tally.wrongGTINs += found.compactMap(\.gtin).filter { !gtins.contains($0) }.count
  }
}
