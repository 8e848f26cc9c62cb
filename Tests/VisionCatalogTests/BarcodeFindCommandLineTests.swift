import Foundation
import TestSupport
import Testing

/// `find` on a photo of a product's barcode (Samples/espresso-barcode.jpg: the EAN-13 of the
/// bundled catalog's HT-1091 on a shelf label) returns that exact product, from the bundled
/// catalog and from real OData v2 and v4 services whose GTIN property is only named in their
/// `$metadata` (ESPM's `EAN` on v2, `GTIN` on v4, S/4HANA's `ProductStandardID`).
@Suite(.enabled(if: DefaultModelFixture.model != nil, "needs the default model"))
struct BarcodeFindCommandLineTests: CommandLineRunning {
  typealias Shape = ODataTestServer.Shape

  static let photo = "Samples/espresso-barcode.jpg"
  static let gtin = "02012345010918"

  static func json(_ outcome: CommandLineOutcome) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
  }

  /// Checks a `find --json` answer: the barcode's product, with provenance `barcode`.
  static func expectBarcodeProduct(_ object: [String: Any], id: String) {
    #expect(object["provenance"] as? String == "barcode")
    let barcode = object["barcode"] as? [String: Any]
    #expect(barcode?["format"] as? String == "EAN-13")
    #expect(barcode?["gtin"] as? String == gtin)
    #expect((barcode?["box"] as? [Int])?.count == 4)
    let products = object["products"] as? [[String: Any]] ?? []
    #expect(products.map { $0["productId"] as? String } == [id])
    // The GTIN goes into the query as a literal.
    #expect((object["query"] as? String)?.contains("'\(gtin)'") == true)
  }

  @Test(.timeLimit(.minutes(3)))
  func theBundledCatalogGivesTheBarcodesProduct() async throws {
    let outcome = try await run(["find", Self.photo, "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try Self.json(outcome)
    Self.expectBarcodeProduct(object, id: "HT-1091")
    #expect(object["category"] as? String == "Espresso Machines")
    #expect(!(object["classifications"] as? [Any] ?? []).isEmpty)
  }

  @Test(.timeLimit(.minutes(3)))
  func aPhotoWithoutBarcodeSaysSoAndFindsTheCategory() async throws {
    let outcome = try await run(["find", "Samples/coffee.png", "--json"])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try Self.json(outcome)
    #expect(object["provenance"] as? String == "classification")
    #expect(object.keys.contains("barcode") && object["barcode"] is NSNull)
    #expect(object["category"] as? String == "Espresso Machines")
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    .timeLimit(.minutes(3)),
    arguments: [(Shape.espm, "2"), (.espm, "4"), (.s4, "2"), (.s4, "4")])
  func servicesGiveTheBarcodesProduct(_ shape: Shape, _ version: String) async throws {
    let root = try ODataTestServers.shared(version == "2" ? .v2 : .v4, shape: shape).serviceRoot
      .absoluteString
    let outcome = try await run([
      "find", Self.photo, "--service", root, "--odata-version", version, "--json",
    ])
    #expect(outcome.status == 0, "\(outcome.error)")
    let object = try Self.json(outcome)
    Self.expectBarcodeProduct(object, id: "HT-1091")
    #expect((object["query"] as? String)?.hasPrefix(root) == true)
  }

  @Test(.timeLimit(.minutes(3)))
  func barcodesPrintsTheCodeAndAFolderGivesJSONLines() async throws {
    let single = try await run(["barcodes", Self.photo, "--json"])
    #expect(single.status == 0, "\(single.error)")
    let codes = try #require(try Self.json(single)["barcodes"] as? [[String: Any]])
    #expect(codes.count == 1)
    #expect(codes.first?["text"] as? String == "2012345010918")
    #expect(codes.first?["gtin"] as? String == Self.gtin)

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "barcodes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.copyItem(
      atPath: Self.photo, toPath: folder.appendingPathComponent("a.jpg").path)
    try FileManager.default.copyItem(
      atPath: "Samples/coffee.png", toPath: folder.appendingPathComponent("b.png").path)
    try Data("not a photo".utf8).write(to: folder.appendingPathComponent("c.jpg"))
    let batch = try await run(["barcodes", folder.path])
    #expect(batch.status == 1, "one photo is broken")
    let lines = batch.output.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(lines.count == 3)
    #expect((lines.first?["barcodes"] as? [Any])?.count == 1)
    #expect((lines.dropFirst().first?["barcodes"] as? [Any])?.isEmpty == true)
    #expect(lines.last?["error"] is String)
  }
}
