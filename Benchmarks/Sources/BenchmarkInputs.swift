import Foundation
import ImagePipeline

/// The benchmark input files, made once from the bundled sample photo so every tool times the
/// same bytes: a 12 MP phone-style JPEG (4032 x 3024 stored, EXIF orientation 6), a 1080p JPEG
/// and a 1024 x 768 PNG.
///
/// The sample is upscaled bilinearly and given a fixed pseudo-random grain (an LCG, so the files
/// are identical on every machine) so the JPEG entropy coder sees photo-like detail.
enum BenchmarkInputs {
  static let jpeg12MP = "photo-12mp.jpg"
  static let jpeg1080p = "photo-1080p.jpg"
  static let png1MP = "photo-1mp.png"

  static let sample = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Samples/coffee.png")

  static func make(in folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let wanted = [jpeg12MP, jpeg1080p, png1MP].map { folder.appendingPathComponent($0).path }
    guard wanted.contains(where: { !FileManager.default.fileExists(atPath: $0) }) else { return }
    let source = try ImageDecoder().decode(contentsOf: sample)
    var photo = try upscaled(source, width: 4032, height: 3024)
    photo.orientation = .right
    try write(try JPEGEncoder(quality: 92).encode(photo), folder, jpeg12MP)
    try write(
      try JPEGEncoder(quality: 90).encode(try upscaled(source, width: 1920, height: 1080)), folder,
      jpeg1080p)
    try write(
      try PNGEncoder().encode(try upscaled(source, width: 1024, height: 768)), folder, png1MP)
  }

  private static func write(_ bytes: [UInt8], _ folder: URL, _ name: String) throws {
    try Data(bytes).write(to: folder.appendingPathComponent(name))
  }

  /// Bilinear upscaling of an RGB image plus a deterministic grain of up to +-6 levels.
  private static func upscaled(_ image: RasterImage, width: Int, height: Int) throws -> RasterImage
  {
    let channels = image.format.channelCount
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    var state: UInt32 = 0x1234_5678
    for y in 0..<height {
      let sy = min(
        max((Double(y) + 0.5) * Double(image.height) / Double(height) - 0.5, 0),
        Double(image.height - 1))
      let y0 = Int(sy)
      let y1 = min(y0 + 1, image.height - 1)
      let fy = sy - Double(y0)
      for x in 0..<width {
        let sx = min(
          max((Double(x) + 0.5) * Double(image.width) / Double(width) - 0.5, 0),
          Double(image.width - 1))
        let x0 = Int(sx)
        let x1 = min(x0 + 1, image.width - 1)
        let fx = sx - Double(x0)
        state = state &* 1_664_525 &+ 1_013_904_223
        let grain = Double(Int(state >> 28) - 8) * 0.75
        for channel in 0..<3 {
          func at(_ px: Int, _ py: Int) -> Double {
            Double(image.pixels[(py * image.width + px) * channels + min(channel, channels - 1)])
          }
          let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
          let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
          let value = top * (1 - fy) + bottom * fy + grain
          pixels[(y * width + x) * 3 + channel] = UInt8(min(max(value, 0), 255))
        }
      }
    }
    return try RasterImage(width: width, height: height, format: .rgb, pixels: pixels)
  }
}
