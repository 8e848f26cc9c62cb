public import Foundation
public import ImagePipeline

/// A photo and the label it shows, one sample for ``ClassifierTrainer``.
public struct TrainingPhoto: Sendable {
  /// The label: a folder's name, or a catalog's category.
  public var label: String
  /// The photo: a file or encoded bytes (a decoded image is trained on, but not cached).
  public var source: ImageSource

  /// A labeled photo.
  ///
  /// - Parameters:
  ///   - label: The label the photo shows.
  ///   - source: The photo.
  public init(label: String, source: ImageSource) {
    self.label = label
    self.source = source
  }

  /// The photos of a folder that holds one subfolder per label, as Create ML reads them.
  ///
  /// Each subfolder's name is its photos' label; photos are found in it and in its subfolders by
  /// their extension (`ImageFormat/fileExtensions`), hidden entries skipped, in path order.
  /// Files directly in `folder` are ignored.
  ///
  /// - Parameter folder: The folder.
  /// - Returns: The photos, label folders in name order.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `folder` cannot be
  ///   listed or holds no label folder with a photo.
  public static func labeledFolders(at folder: URL) throws(ClassificationError) -> [TrainingPhoto] {
    let manager = FileManager.default
    let entries: [URL]
    do {
      entries = try manager.contentsOfDirectory(
        at: folder, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
    } catch {
      throw ClassificationError(
        .invalidArgument, "cannot list the folder \(folder.path)",
        underlying: FileError(description: "\(error)"))
    }
    let labelFolders = entries.filter {
      (try? $0.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true
    }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    var photos: [TrainingPhoto] = []
    for labelFolder in labelFolders {
      for url in photoFiles(under: labelFolder) {
        photos.append(TrainingPhoto(label: labelFolder.lastPathComponent, source: .file(url)))
      }
    }
    guard !photos.isEmpty else {
      throw ClassificationError(
        .invalidArgument,
        "\(folder.path) holds no photos in label folders: put each label's photos in a "
          + "subfolder named for the label (\(labelFolders.count) subfolders found)")
    }
    return photos
  }

  /// The photo files under `folder`, subfolders included, hidden entries skipped, sorted by path.
  private static func photoFiles(under folder: URL) -> [URL] {
    guard
      let walker = FileManager.default.enumerator(
        at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
    else { return [] }
    var found: [URL] = []
    for case let url as URL in walker
    where ImageFormat.fileExtensions.contains(url.pathExtension.lowercased())
      && (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
    {
      found.append(url)
    }
    return found.sorted { $0.path < $1.path }
  }
}
