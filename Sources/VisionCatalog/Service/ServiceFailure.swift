import Foundation
import WebService

/// A request the service cannot answer with a result: the status and the
/// `{"error": {"code", "message"}}` body.
///
/// Photos that cannot be read, or that are too large to decode, are the client's mistake
/// (400); a full queue is 503 with `Retry-After`; a catalog that fails is 502.
struct ServiceFailure: Error, Sendable {
  let status: Int
  let code: String
  let message: String

  init(_ status: Int, _ code: String, _ message: String) {
    self.status = status
    self.code = code
    self.message = message
  }

  /// A classification's failure.
  init(_ error: ClassificationError) {
    switch error.code {
    case .overloaded: self.init(503, "overloaded", "the server is busy; retry shortly")
    case .cancelled: self.init(499, "cancelled", "the client went away")
    case .invalidImage: self.init(400, Self.imageCode(error.underlying), error.message)
    case .invalidArgument: self.init(400, "invalid_argument", error.message)
    default: self.init(500, "classification_failed", error.message)
    }
  }

  /// A barcode reader's failure.
  init(_ error: BarcodeError) {
    switch error.code {
    case .image, .limitExceeded: self.init(400, Self.imageCode(error.underlying), error.message)
    default: self.init(500, "barcode_reader_failed", error.message)
    }
  }

  /// The finder's failure, by stage.
  init(_ error: VisionCatalogError) {
    if let classification = error.underlying as? ClassificationError {
      self.init(classification)
      return
    }
    switch error.stage {
    case .image: self.init(400, Self.imageCode(error.underlying), error.message)
    case .noCategory: self.init(422, "no_category", error.message)
    case .catalog: self.init(502, "catalog_failed", error.message)
    default: self.init(500, "failed", error.message)
    }
  }

  /// `bad_image`, or `image_too_large` for a photo over the decoder's limits (a decompression
  /// bomb).
  private static func imageCode(_ underlying: (any Error)?) -> String {
    (underlying as? ImageDecodingError)?.code == .limitExceeded ? "image_too_large" : "bad_image"
  }

  /// The JSON response.
  var response: WebResponse {
    struct Body: Encodable {
      struct Detail: Encodable {
        let code: String
        let message: String
      }
      let error: Detail
    }
    var response =
      (try? CatalogService.encoded(Body(error: .init(code: code, message: message)), status: status))
      ?? WebResponse.json(status, Array("{}".utf8))
    if status == 503 { response.headers.append(("Retry-After", "1")) }
    return response
  }
}
