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
  /// Symbolic links are followed, to label folders, to folders within them and to photos, so a
  /// dataset may be made of links into one photo store; a link that leads nowhere is kept as a
  /// photo, which the trainer then lists as skipped. Files directly in `folder` are ignored.
  ///
  /// - Parameter folder: The folder.
  /// - Returns: The photos, label folders in name order.
  /// - Throws: ``ClassificationError`` with code `invalidArgument` when `folder` or a folder in it
  ///   cannot be listed, nests deeper than 64 folders, or holds no label folder with a photo.
  public static func labeledFolders(at folder: URL) throws(ClassificationError) -> [TrainingPhoto] {
    let labelFolders: [URL]
    var photos: [TrainingPhoto] = []
    do {
      labelFolders = try PhotoFolder.subfolders(of: folder)
      for labelFolder in labelFolders {
        for url in try PhotoFolder.photos(under: labelFolder) {
          photos.append(TrainingPhoto(label: labelFolder.lastPathComponent, source: .file(url)))
        }
      }
    } catch {
      throw ClassificationError(.invalidArgument, error.message, underlying: error)
    }
    guard !photos.isEmpty else {
      throw ClassificationError(
        .invalidArgument,
        "\(folder.path) holds no photos in label folders: put each label's photos in a "
          + "subfolder named for the label (\(labelFolders.count) subfolders found)")
    }
    return photos
  }
}
