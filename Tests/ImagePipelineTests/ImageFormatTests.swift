import ImagePipeline
import Testing

@Test func sniffsPNGAndJPEG() {
  #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
  #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
  #expect(ImageFormat.sniff([0x47, 0x49, 0x46]) == nil)
}

@Test func sniffsWebPOnlyWithItsRIFFFormType() {
  let webp = Array("RIFF".utf8) + [0x10, 0, 0, 0] + Array("WEBPVP8 ".utf8)
  #expect(ImageFormat.sniff(webp) == .webp)
  // Another RIFF form (a WAVE file) and a header cut before the form type are not WebP.
  #expect(ImageFormat.sniff(Array("RIFF".utf8) + [0x10, 0, 0, 0] + Array("WAVE".utf8)) == nil)
  #expect(ImageFormat.sniff(Array("RIFF".utf8) + [0x10, 0, 0, 0] + Array("WE".utf8)) == nil)
}

/// An `ftyp` box with a major brand and compatible brands.
private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
  let size = 16 + 4 * compatible.count
  return [0, 0, 0, UInt8(size)] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0]
    + compatible.flatMap { Array($0.utf8) }
}

@Test func sniffsHEIFAndAVIFFromTheirBrands() {
  #expect(ImageFormat.sniff(ftyp("heic", ["mif1", "heic"])) == .heif)
  #expect(ImageFormat.sniff(ftyp("heix", ["mif1", "heix", "miaf"])) == .heif)
  #expect(ImageFormat.sniff(ftyp("avif", ["avif", "mif1", "miaf"])) == .avif)
  // A generic major brand: the compatible brands decide.
  #expect(ImageFormat.sniff(ftyp("mif1", ["mif1", "avif"])) == .avif)
  #expect(ImageFormat.sniff(ftyp("mif1", ["mif1", "heic"])) == .heif)
  #expect(ImageFormat.sniff(ftyp("msf1", ["msf1", "hevc"])) == .heif)
  // MP4 video and QuickTime are ISO files too, but not images.
  #expect(ImageFormat.sniff(ftyp("isom", ["isom", "mp41"])) == nil)
  #expect(ImageFormat.sniff(ftyp("qt  ", ["qt  "])) == nil)
  #expect(ImageFormat.sniff(Array(ftyp("heic", []).prefix(10))) == nil)
  #expect(
    ImageFormat.heif.appliesContainerTransforms && ImageFormat.avif.appliesContainerTransforms)
  #expect(!ImageFormat.jpeg.appliesContainerTransforms)
}
