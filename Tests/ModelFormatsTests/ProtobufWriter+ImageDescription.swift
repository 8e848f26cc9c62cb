@testable import ModelFormats

extension ProtobufWriter {
  /// A Core ML model description (field 2) with one RGB image input named `image`.
  mutating func imageDescription(width: Int64, height: Int64) {
    message(2) { description in
      description.message(1) { feature in
        feature.string(1, "image")
        feature.message(3) { type in
          type.message(4) { image in
            image.int(1, width)
            image.int(2, height)
            image.int(3, 20)
          }
        }
      }
    }
  }
}
