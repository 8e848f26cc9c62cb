import CatalogClient
import Foundation
import ImagePipeline
import TestSupport
import Testing

@testable import Barcodes

/// The reader on real photos of product barcodes (zxing-cpp's and ZXing's samples, committed in
/// `Photos/` with the codes really in them), turned every way EXIF can turn them, and on bad
/// input.
struct BarcodeReaderTests {
  private let reader = BarcodeReader()

  private static func photo(_ name: String) -> URL {
    BarcodeFixtures.samples.appendingPathComponent(name)
  }

  @Test func everySampleReadsAsItsCodeSaysOrNotAtAll() throws {
    let expected = try BarcodeFixtures.codes(
      in: BarcodeFixtures.samples.appendingPathComponent("expected.json"))
    var read = 0
    for (file, codes) in expected.sorted(by: { $0.key < $1.key }) {
      let found = try reader.read(.file(Self.photo(file)))
      for barcode in found {
        // Whatever is reported is right: its text, symbology family and GTIN are the photo's.
        #expect(
          codes.contains { $0.text == barcode.text || $0.gtin == barcode.gtin?.digits },
          "\(file): \(barcode) is not in the photo")
        if let gtin = barcode.gtin {
          #expect(codes.contains { $0.gtin == gtin.digits }, "\(file): wrong GTIN \(gtin)")
        }
      }
      read += codes.filter { code in found.contains { Self.matches($0, code) } }.count
    }
    // zxing-cpp 3.1.1's Python binding reads 12 of the 13 (not the ISBN on the book's back).
    #expect(read >= 12)
  }

  @Test func aUPCEGivesItsUPCANumberAsGTIN() throws {
    let found = try reader.read(.file(Self.photo("upce-can.png")))
    #expect(found.map(\.symbology) == [.upcE])
    #expect(found.first?.text == "05096893")
    #expect(found.first?.gtin == GTIN("050968000093"))
  }

  @Test func aDataBarGivesItsGS1GTIN() throws {
    let found = try reader.read(.file(Self.photo("databar-label.png")))
    #expect(found.map(\.symbology) == [.dataBar])
    #expect(found.first?.gtin?.digits == "02001234567893")
  }

  @Test(arguments: ImageOrientation.allCases)
  func aTurnedPhotoReadsUprightWithItsBoxInTheUprightPhoto(_ orientation: ImageOrientation)
    throws
  {
    for file in ["qrcode-bookmark.jpg", "ean13-can.jpg"] {
      let upright = try ImageDecoder().decode(contentsOf: Self.photo(file)).oriented()
      let expected = try reader.read(upright)
      try #require(expected.count == 1, "\(file) reads upright")
      var stored = RasterImage(storing: upright, shownAs: orientation)
      stored.orientation = orientation
      let found = try reader.read(stored)
      try #require(found.count == 1, "\(file) turned \(orientation)")
      #expect(found[0].text == expected[0].text)
      #expect(found[0].gtin == expected[0].gtin)
      let box = found[0].box
      let centre = (x: box.x + box.width / 2, y: box.y + box.height / 2)
      let truth = expected[0].box
      // The code was found where it is in the upright photo (a linear code's box depends on
      // the rows it was read on, so only its centre is compared).
      #expect(
        (truth.x - 4...truth.x + truth.width + 4).contains(centre.x)
          && (truth.y - 24...truth.y + truth.height + 24).contains(centre.y),
        "\(file) \(orientation): \(box) is not on \(truth)")
    }
  }

  /// Two copies of one code side by side: Debian's zxing-cpp asserts (and aborts the process)
  /// when its own merge compares them, so the reader must never let it (the fuzzer's first find,
  /// `Fuzz/Regressions/BarcodeRead/two-copies-of-one-upca`).
  @Test func twoCopiesOfOneCodeAreTwoBarcodes() throws {
    let photo = try ImageDecoder().decode(contentsOf: Self.photo("upca-candy-bag.jpg")).oriented()
    let row = photo.width * photo.format.channelCount
    var pixels: [UInt8] = []
    for y in 0..<photo.height {
      let line = photo.pixels[(y * row)..<((y + 1) * row)]
      pixels += line + line
    }
    let twice = try RasterImage(
      width: photo.width * 2, height: photo.height, format: photo.format, pixels: pixels)
    let found = try reader.read(twice)
    #expect(found.count == 2)
    #expect(Set(found.map(\.gtin)) == [GTIN("036602301467")])
    #expect(found.map(\.box.x).sorted().last ?? 0 >= photo.width)
  }

  @Test func aPhotoWithoutBarcodeGivesNone() throws {
    var generator = SeededGenerator(seed: 42)
    let pixels = (0..<(640 * 480)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let noise = try RasterImage(width: 640, height: 480, format: .gray, pixels: pixels)
    #expect(try reader.read(noise).isEmpty)
    let dot = try RasterImage(width: 1, height: 1, format: .rgba, pixels: [0, 0, 0, 255])
    #expect(try reader.read(dot).isEmpty)
  }

  @Test func aDamagedPhotoIsAnImageError() throws {
    let bytes = try Data(contentsOf: Self.photo("ean13-can.jpg"))
    for damaged in [bytes.prefix(600), Data("not a photo".utf8), Data()] {
      #expect {
        try reader.read(.data(Data(damaged)))
      } throws: { error in
        (error as? BarcodeError)?.code == .image
      }
    }
  }

  @Test func optionsOutOfRangeAreRefused() throws {
    var reader = BarcodeReader()
    reader.maximumBarcodes = 0
    let image = try RasterImage(
      width: 8, height: 8, format: .gray, pixels: .init(repeating: 0, count: 64))
    #expect {
      try reader.read(image)
    } throws: { error in
      (error as? BarcodeError)?.code == .invalidArgument
    }
  }

  /// Whether a barcode is the code: the same GTIN when the code has one, else the same text.
  static func matches(_ barcode: Barcode, _ code: BarcodeFixtures.Code) -> Bool {
    if let gtin = code.gtin { return barcode.gtin?.digits == gtin }
    return barcode.text == code.text
  }
}

extension RasterImage {
  /// The stored pixels of a photo that shows as `upright` when turned by `orientation`.
  init(storing upright: RasterImage, shownAs orientation: ImageOrientation) {
    let inverse: ImageOrientation =
      switch orientation {
      case .right: .left
      case .left: .right
      default: orientation
      }
    var turned = upright
    turned.orientation = inverse
    self = turned.oriented()
  }
}
