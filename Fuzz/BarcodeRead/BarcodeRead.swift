import Barcodes
import CatalogClient
import Foundation
import ImagePipeline

/// Feeds one input to the barcode reader, as a photo file (first byte even) or as raw gray
/// pixels (first byte odd: two bytes of width, then the rows).
///
/// Any outcome other than barcodes or a `BarcodeError` is a finding (the fuzzer sees a crash):
/// zxing-cpp's own assertions (Debian keeps them) included. Every reported GTIN must be 14
/// digits and every box inside the upright photo.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let mode = bytes.first else { return 0 }
  var reader = BarcodeReader(firstPassSide: 256)
  reader.decoding = DecodingOptions(maximumPixelCount: 1_000_000)
  if mode % 2 == 0 {
    let photo = Data(bytes.dropFirst())
    guard let found = try? reader.read(.data(photo)),
      let image = try? ImageDecoder(options: reader.decoding).decode(photo)
    else { return 0 }
    check(found, width: image.displayWidth, height: image.displayHeight)
  } else if bytes.count > 3 {
    let width = max(1, (Int(bytes[1]) | Int(bytes[2]) << 8) % 1024)
    let pixels = Array(bytes.dropFirst(3))
    let height = pixels.count / width
    guard height > 0,
      let image = try? RasterImage(
        width: width, height: height, format: .gray,
        pixels: Array(pixels.prefix(width * height)),
        orientation: ImageOrientation(rawValue: mode % 8 + 1) ?? .up)
    else { return 0 }
    guard let found = try? reader.read(image) else { return 0 }
    check(found, width: image.displayWidth, height: image.displayHeight)
  }
  return 0
}

/// Every GTIN is 14 digits and every box lies in the upright photo.
func check(_ barcodes: [Barcode], width: Int, height: Int) {
  for barcode in barcodes {
    if let gtin = barcode.gtin, gtin.digits.count != 14 || !gtin.digits.allSatisfy(\.isNumber) {
      fatalError("a GTIN that is not 14 digits: \(gtin)")
    }
    let box = barcode.box
    guard box.x >= 0, box.y >= 0, box.width > 0, box.height > 0, box.x + box.width <= width,
      box.y + box.height <= height
    else {
      fatalError("\(box) is outside the \(width)x\(height) photo")
    }
  }
}
