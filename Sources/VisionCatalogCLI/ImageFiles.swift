import Foundation
import VisionCatalog

/// Reading input images and writing output files for the image subcommands.
enum ImageFiles {
  /// Decodes the image file at `path`, reporting failures as one CLI line.
  static func decode(_ path: String) throws(CLIError) -> RasterImage {
    do {
      return try ImageDecoder().decode(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw CLIError.failure("\(path): \(error.message)")
    }
  }

  /// Reads the photo at `path` and parses its header, once, reporting failures as one CLI line.
  static func load(_ path: String) throws(CLIError) -> ImageSource {
    do {
      return try ImageSource.file(URL(fileURLWithPath: path)).loaded()
    } catch {
      throw CLIError.failure("\(path): \(error.message)")
    }
  }

  /// Runs an image step on the decoded photo from `path`, reporting failures as one CLI line.
  static func prepare<T>(
    _ path: String, _ step: () throws(ImageDecodingError) -> T
  ) throws(CLIError) -> T {
    do {
      return try step()
    } catch {
      throw CLIError.failure("\(path): \(error.message)")
    }
  }

  /// The kind of file an output path names, which must be one of `allowed`.
  static func outputKind(of path: String, allowed: [OutputFileKind]) throws(CLIError)
    -> OutputFileKind
  {
    guard let kind = OutputFileKind(path: path), allowed.contains(kind) else {
      let names = allowed.map { "." + $0.rawValue }.joined(separator: " or ")
      throw CLIError.usage("--out must end in \(names), not '\(path)'")
    }
    return kind
  }

  /// Writes `bytes` to `path` atomically.
  static func write(_ bytes: [UInt8], to path: String) throws(CLIError) {
    do {
      try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw CLIError.failure("cannot write \(path): \(error.localizedDescription)")
    }
  }

  /// Encodes an upright image as PNG (keeping its channels) or binary PPM (RGB).
  static func encode(_ image: RasterImage, as kind: OutputFileKind) throws(CLIError) -> [UInt8] {
    guard kind == .png else { return PPMEncoder().encode(image) }
    do {
      return try PNGEncoder().encode(image)
    } catch {
      throw CLIError.failure("cannot encode PNG: \(error.message)")
    }
  }
}
