import Foundation

/// Writes progress and error lines to standard error, keeping standard output for results.
enum StandardError {
  /// Writes `text` as it is; the caller ends its lines.
  static func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
