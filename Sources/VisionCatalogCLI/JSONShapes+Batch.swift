import VisionCatalog

extension JSONShapes {
  /// One line of a batch command (`classify`, `barcodes`): `"file"` and either the single-photo
  /// `--json` keys or `"error"`.
  struct BatchLine<Result: Encodable & Sendable>: Encodable, Sendable {
    let file: String
    var result: Result?
    var error: String?

    init(file: String) {
      self.file = file
    }

    enum CodingKeys: String, CodingKey {
      case file, error
    }

    func encode(to encoder: any Encoder) throws {
      try result?.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(file, forKey: .file)
      try container.encodeIfPresent(error, forKey: .error)
    }
  }
}
