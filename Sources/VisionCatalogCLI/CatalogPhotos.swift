import Foundation
import VisionCatalog

/// `train --from-catalog`: the catalog's product pictures as labeled photos.
enum CatalogPhotos {
  /// Reads the catalog the arguments name and its products' pictures, with progress on
  /// standard error.
  static func load(_ parsed: CommandLineArguments) async throws(CLIError) -> CatalogTrainingPhotos {
    let selection = try CatalogOptions.source(from: parsed)
    let (provider, schema) = try await selection.connect()
    var headers: [String: String] = [:]
    if let authorization = selection.credentials?.authorization {
      headers["Authorization"] = authorization.headerValue
    }
    StandardError.write("reading the catalog's products and pictures...\n")
    var lastShown = 0
    do {
      return try await CatalogTrainingPhotos.load(
        from: selection.source, provider: provider, schema: schema, pictureHeaders: headers
      ) { done, total in
        if done == total || done - lastShown >= max(1, total / 10) {
          StandardError.write("catalog: \(done)/\(total) products\n")
          lastShown = done
        }
      }
    } catch {
      throw CLIError.failure(error.message)
    }
  }
}
