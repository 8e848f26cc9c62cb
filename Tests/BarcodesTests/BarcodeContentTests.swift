import CatalogClient
import Testing

@testable import Barcodes

/// The GTIN each symbology's text carries, with check digits from real products.
struct BarcodeContentTests {
  @Test(arguments: [
    ("4006381333931", BarcodeSymbology.ean13, "04006381333931"),
    ("96385074", .ean8, "00000096385074"),
    ("036000291452", .upcA, "00036000291452"),
    ("05096893", .upcE, "00050968000093"),
    ("04252614", .upcE, "00042100005264"),
    ("10012345678902", .itf, "10012345678902"),
    ("(01)02001234567893", .dataBar, "02001234567893"),
    ("02001234567893", .dataBar, "02001234567893"),
    ("(01)09521234543213(10)ABC", .dataBarExpanded, "09521234543213"),
    ("0109521234543213\u{1D}10ABC", .code128, "09521234543213"),
    ("https://id.gs1.org/01/09521234543213/10/ABC", .qrCode, "09521234543213"),
    ("https://example.com/shop/01/4006381333931?x=1", .qrCode, "04006381333931"),
  ])
  func aValidCodeGivesItsGTIN(text: String, symbology: BarcodeSymbology, gtin: String) {
    let identifier = symbology == .code128 ? "]C1" : ""
    #expect(
      BarcodeContent.gtin(in: text, symbology: symbology, identifier: identifier)?.digits == gtin)
  }

  @Test(arguments: [
    ("4006381333932", BarcodeSymbology.ean13, ""),
    ("10012345678903", .itf, ""),
    ("070429", .itf, ""),
    ("(01)02001234567894", .dataBar, "]e0"),
    ("0109521234543214", .code128, "]C1"),
    ("0109521234543213", .code128, "]C0"),
    ("https://id.gs1.org/01/09521234543214", .qrCode, "]Q1"),
    ("https://id.gs1.org/10/ABC", .qrCode, "]Q1"),
    ("ftp://id.gs1.org/01/09521234543213", .qrCode, "]Q1"),
    ("MEBKM:URL:http\\://en.wikipedia.org/wiki/Main_Page;;", .qrCode, "]Q1"),
    ("05096894", .upcE, ""),
    ("25096893", .upcE, ""),
  ])
  func aDamagedFakedOrNonGS1CodeGivesNone(
    text: String, symbology: BarcodeSymbology, identifier: String
  ) {
    #expect(BarcodeContent.gtin(in: text, symbology: symbology, identifier: identifier) == nil)
  }

  @Test func upcEExpandsByItsSixthDigit() {
    #expect(BarcodeContent.expandedUPCE("01234505") == "012000003455")
    #expect(BarcodeContent.expandedUPCE("01234531") == "012300000451")
    #expect(BarcodeContent.expandedUPCE("01234543") == "012340000053")
    #expect(BarcodeContent.expandedUPCE("01234558") == "012345000058")
    #expect(BarcodeContent.expandedUPCE("0123455") == nil)
    #expect(BarcodeContent.expandedUPCE("0123455a") == nil)
  }
}
