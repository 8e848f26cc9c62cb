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
