extension JSONShapes {
  /// One barcode: `{"format", "text", "gtin", "box": [x, y, w, h]}`, `gtin` `null` when the
  /// code carries none.
  package struct Barcode: Encodable, Sendable {
    package let format: String
    package let text: String
    package let gtin: String?
    package let box: [Int]

    package init(_ barcode: Barcodes.Barcode) {
      format = barcode.symbology.rawValue
      text = barcode.text
      gtin = barcode.gtin?.digits
      box = [barcode.box.x, barcode.box.y, barcode.box.width, barcode.box.height]
    }

    enum CodingKeys: String, CodingKey {
      case format, text, gtin, box
    }

    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(format, forKey: .format)
      try container.encode(text, forKey: .text)
      try container.encode(gtin, forKey: .gtin)
      try container.encode(box, forKey: .box)
    }
  }

  /// `barcodes --json`: `{"barcodes": [...]}`.
  package struct BarcodeList: Encodable, Sendable {
    package let barcodes: [Barcode]

    package init(_ barcodes: [Barcodes.Barcode]) {
      self.barcodes = barcodes.map(Barcode.init)
    }
  }
}
