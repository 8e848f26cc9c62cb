import ClassifierKit
import Foundation
import ImagePipeline
import TestSupport
import Testing

/// `TrainingPhoto.labeledFolders(at:)` over datasets made of symbolic links, as torchvision's
/// `ImageFolder` and Create ML read them: links to label folders and to photos count, and a
/// broken link is kept for the trainer to list as skipped.
struct LabeledFoldersTests {
  @Test func labelFoldersAndPhotosThatAreLinksCount() throws {
    let tree = try PhotoTree("labeled-links")
    defer { tree.remove() }
    try tree.file("store/espresso/coffee.png")
    try tree.file("store/espresso/nested/more.png")
    try tree.file("store/mug.png")
    try tree.link("data/coffee", to: "../store/espresso")
    try tree.link("data/mugs/mug.png", to: "../../store/mug.png")
    try tree.link("data/mugs/gone.png", to: "../../store/gone.png")
    try tree.link("data/.hidden", to: "../store/espresso")
    try tree.link("data/stray.png", to: "../store/mug.png")
    let photos = try TrainingPhoto.labeledFolders(at: tree.url("data"))
    let data = tree.url("data").path
    #expect(photos.map(\.label) == ["coffee", "coffee", "mugs", "mugs"])
    #expect(
      photos.map(\.source.name) == [
        "\(data)/coffee/coffee.png", "\(data)/coffee/nested/more.png", "\(data)/mugs/gone.png",
        "\(data)/mugs/mug.png",
      ])
  }

  @Test func aFolderOfLinksWithoutPhotosIsStillRefused() throws {
    let tree = try PhotoTree("labeled-empty")
    defer { tree.remove() }
    try tree.folder("store/empty")
    try tree.link("data/cats", to: "../store/empty")
    try tree.link("data/dogs", to: "../store/missing")
    let error = #expect(throws: ClassificationError.self) {
      try TrainingPhoto.labeledFolders(at: tree.url("data"))
    }
    #expect(error?.code == .invalidArgument)
    #expect(error?.message.contains("holds no photos") == true)
    #expect(error?.message.contains("1 subfolders found") == true)
  }
}
