import Foundation
import ImagePipeline
import TestSupport
import Testing

/// `PhotoFolder`, the one walk behind batch `classify`, `train` and `evaluate`: symbolic links
/// followed to files and folders, cycles and depth bounded, hidden entries skipped, broken links
/// kept so that no photo is lost without a word.
struct PhotoFolderTests {
  /// The paths of `urls` relative to the tree's root.
  static func names(_ urls: [URL], in tree: PhotoTree) -> [String] {
    urls.map { String($0.path.dropFirst(tree.root.path.count + 1)) }
  }

  @Test func linksToPhotosAndFoldersAreFollowedAndNamedAsReached() throws {
    let tree = try PhotoTree("walk-links")
    defer { tree.remove() }
    try tree.file("store/coffee.png")
    try tree.file("store/album/b.JPG")
    try tree.file("data/c.PNG")
    try tree.file("data/notes.txt", bytes: Data("not a photo".utf8))
    try tree.link("data/a.png", to: "../store/coffee.png")
    try tree.link("data/album", to: "../store/album")
    try tree.link("data/deeper/more", to: tree.url("store").path)
    let photos = try PhotoFolder.photos(under: tree.url("data"))
    #expect(
      Self.names(photos, in: tree) == [
        "data/a.png", "data/album/b.JPG", "data/c.PNG", "data/deeper/more/album/b.JPG",
        "data/deeper/more/coffee.png",
      ])
    // The walk of a link to a folder names the link, as it was given.
    let throughLink = try PhotoFolder.photos(under: tree.url("data/album"))
    #expect(Self.names(throughLink, in: tree) == ["data/album/b.JPG"])
  }

  @Test func aCycleOfLinksEndsAndEachPathIsListedOnce() throws {
    let tree = try PhotoTree("walk-cycle")
    defer { tree.remove() }
    try tree.file("root/a.png")
    try tree.file("root/sub/b.png")
    try tree.link("root/sub/up", to: "..")
    try tree.link("root/here", to: ".")
    // A second path to the same folder, not a cycle: its photos are listed under both paths.
    try tree.link("root/again", to: "sub")
    let photos = try PhotoFolder.photos(under: tree.url("root"))
    #expect(Self.names(photos, in: tree) == ["root/a.png", "root/again/b.png", "root/sub/b.png"])
  }

  @Test func hiddenEntriesAreSkipped() throws {
    let tree = try PhotoTree("walk-hidden")
    defer { tree.remove() }
    try tree.file("root/shown.png")
    try tree.file("root/.hidden.png")
    try tree.file("root/.thumbnails/t.png")
    try tree.link("root/.link.png", to: "shown.png")
    try tree.link("root/.linked", to: "../root")
    let photos = try PhotoFolder.photos(under: tree.url("root"))
    #expect(Self.names(photos, in: tree) == ["root/shown.png"])
  }

  /// A broken link named like a photo is listed, so reading it fails where the caller reports
  /// it; one not named like a photo is left out as any other file would be.
  @Test func aBrokenLinkToAPhotoIsListedAndFailsToRead() throws {
    let tree = try PhotoTree("walk-broken")
    defer { tree.remove() }
    try tree.file("root/good.png")
    try tree.link("root/gone.png", to: "missing.png")
    try tree.link("root/gone.txt", to: "missing.txt")
    try tree.link("root/loop.jpg", to: "loop.jpg")
    try tree.link("root/folder", to: "missing-folder")
    let photos = try PhotoFolder.photos(under: tree.url("root"))
    #expect(
      Self.names(photos, in: tree) == ["root/gone.png", "root/good.png", "root/loop.jpg"])
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageSource.file(tree.url("root/gone.png")).loaded()
    }
    #expect(error?.code == .io)
  }

  @Test func anEmptyFolderHasNoPhotosAndAMissingOneIsAnError() throws {
    let tree = try PhotoTree("walk-empty")
    defer { tree.remove() }
    try tree.folder("empty/sub")
    try tree.file("other/notes.txt", bytes: Data("not a photo".utf8))
    #expect(try PhotoFolder.photos(under: tree.url("empty")).isEmpty)
    #expect(try PhotoFolder.photos(under: tree.url("other")).isEmpty)
    for missing in ["nothing", "other/notes.txt"] {
      let error = #expect(throws: ImageDecodingError.self) {
        try PhotoFolder.photos(under: tree.url(missing))
      }
      #expect(error?.code == .io)
      #expect(error?.message.contains(missing) == true, "\(String(describing: error))")
    }
  }

  @Test func foldersNestAtMostTheMaximumDepth() throws {
    let tree = try PhotoTree("walk-depth")
    defer { tree.remove() }
    let deepest = Array(repeating: "d", count: PhotoFolder.maximumDepth).joined(separator: "/")
    try tree.file("root/\(deepest)/p.png")
    let photos = try PhotoFolder.photos(under: tree.url("root"))
    #expect(Self.names(photos, in: tree) == ["root/\(deepest)/p.png"])
    try tree.file("root/\(deepest)/d/q.png")
    let error = #expect(throws: ImageDecodingError.self) {
      try PhotoFolder.photos(under: tree.url("root"))
    }
    #expect(error?.code == .limitExceeded)
  }

  @Test func subfoldersFollowLinksAndSkipHiddenOnesAndFiles() throws {
    let tree = try PhotoTree("walk-subfolders")
    defer { tree.remove() }
    try tree.folder("store/cats")
    try tree.folder("root/dogs")
    try tree.folder("root/.cache")
    try tree.file("root/stray.png")
    try tree.link("root/cats", to: "../store/cats")
    try tree.link("root/gone", to: "../store/gone")
    let folders = try PhotoFolder.subfolders(of: tree.url("root"))
    #expect(Self.names(folders, in: tree) == ["root/cats", "root/dogs"])
    #expect(throws: ImageDecodingError.self) { try PhotoFolder.subfolders(of: tree.url("none")) }
  }
}
