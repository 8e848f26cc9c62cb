import Foundation

/// The kind of file a command writes, named by the output's extension, as image tools such as
/// ImageMagick and ffmpeg choose their output format.
package enum OutputFileKind: String, Sendable, CaseIterable {
  /// A PNG picture.
  case png
  /// A binary PPM (P6) picture.
  case ppm
  /// A NumPy array.
  case npy

  /// The kind `path` names by its extension, in any case, or `nil` for another extension.
  package init?(path: String) {
    self.init(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
  }
}
