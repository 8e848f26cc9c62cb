import VisionCatalog

extension JSONShapes {
  /// One barcode: `{"format", "text", "gtin", "box": [x, y, w, h]}`, `gtin` `null` when the
  /// code carries none.
  struct Barcode: Encodable {
    let format: String
    let text: String
    let gtin: String?
    let box: [Int]

    init(_ barcode: VisionCatalog.Barcode) {
      format = barcode.symbology.rawValue
      text = barcode.text
      gtin = barcode.gtin?.digits
      box = [barcode.box.x, barcode.box.y, barcode.box.width, barcode.box.height]
    }

    enum CodingKeys: String, CodingKey {
      case format, text, gtin, box
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(format, forKey: .format)
      try container.encode(text, forKey: .text)
      try container.encode(gtin, forKey: .gtin)
      try container.encode(box, forKey: .box)
    }
  }

  /// `barcodes --json`: `{"barcodes": [...]}`.
  struct Barcodes: Encodable {
    let barcodes: [Barcode]
  }
}
